import { describe, expect, it } from 'vitest';
import { reportInputSchema } from '../../src/domain/memory/schemas.ts';
import { toDetails } from '../../src/domain/validation.ts';

const base = { kind: 'domain', key: 'example.com', outcomeCode: 'fraud_watch' };

function check(body: unknown) {
  const result = reportInputSchema.safeParse(body);
  return result.success ? { data: result.data } : { details: toDetails(result.error) };
}
/** The details list, or the parsed data when the body unexpectedly passed (so the failure shows it). */
function detailsOf(body: unknown) {
  const result = check(body);
  return 'details' in result ? result.details : result;
}

describe('reportInputSchema: defaults and normalisation', () => {
  it('fills every default for a minimal body', () => {
    expect(check(base)).toEqual({
      data: {
        kind: 'domain',
        key: 'example.com',
        title: '',
        summary: '',
        details: '',
        outcomeCode: 'fraud_watch',
        severity: 'medium',
        tags: [],
        relatedSubjects: [],
        sharePolicy: 'clear_share',
        visibility: 'workspace',
        namespace: '',
        eventType: 'observation',
        status: '',
      },
    });
  });

  it('normalises the key by its kind (IDN domain to punycode)', () => {
    expect(check({ ...base, key: 'Bücher.Example.' })).toMatchObject({ data: { key: 'xn--bcher-kva.example' } });
    expect(check({ ...base, kind: 'asn', key: 'AS13335' })).toMatchObject({ data: { key: '13335' } });
  });

  it('treats null optional fields as absent', () => {
    expect(check({ ...base, severity: null, tags: null, relatedSubjects: null, namespace: null })).toMatchObject({
      data: { severity: 'medium', tags: [], relatedSubjects: [], namespace: '' },
    });
  });

  it('lower-cases and trims tags and drops duplicates, keeping first-seen order', () => {
    expect(check({ ...base, tags: [' Phishing ', 'campaign:q3', 'PHISHING', 'a.b-c_d'] })).toMatchObject({
      data: { tags: ['phishing', 'campaign:q3', 'a.b-c_d'] },
    });
  });

  it('normalises related subjects, defaults their role to linked and collapses exact duplicates', () => {
    const related = [
      { kind: 'ipaddress', key: '::ffff:192.0.2.7', role: 'source_ip' },
      { kind: 'ipaddress', key: '192.0.2.7', role: 'source_ip' },
      { kind: 'ipaddress', key: '192.0.2.7', role: 'hosting' },
      { kind: 'email', key: 'Ops@Example.org' },
    ];
    expect(check({ ...base, relatedSubjects: related })).toMatchObject({
      data: {
        relatedSubjects: [
          { kind: 'ipaddress', key: '192.0.2.7', role: 'source_ip' },
          { kind: 'ipaddress', key: '192.0.2.7', role: 'hosting' },
          { kind: 'email', key: 'Ops@example.org', role: 'linked' },
        ],
      },
    });
  });

  it('lower-cases the namespace', () => {
    expect(check({ ...base, namespace: ' Team-A.fraud ' })).toMatchObject({ data: { namespace: 'team-a.fraud' } });
  });
});

describe('reportInputSchema: refusals', () => {
  it('names required fields', () => {
    expect(detailsOf({})).toEqual([
      { field: 'kind', message: 'is required' },
      { field: 'key', message: 'is required' },
      { field: 'outcomeCode', message: 'is required' },
    ]);
  });

  it('puts the normaliser reason and the kind on the key field', () => {
    expect(detailsOf({ ...base, key: 'localhost' })).toEqual([
      { field: 'key', message: 'must have at least two labels, e.g. example.com (kind domain)' },
    ]);
  });

  it('reports a bad key together with problems in other fields', () => {
    expect(detailsOf({ ...base, key: 'a_b.example', title: 't'.repeat(201) })).toEqual([
      { field: 'title', message: 'must be at most 200 characters' },
      { field: 'key', message: expect.stringContaining('invalid label "a_b"') },
    ]);
  });

  it.each([
    [
      'kind',
      'planet',
      'must be one of: ipaddress, cidr, asn, domain, url, email, phone, organization, transaction, account',
    ],
    [
      'outcomeCode',
      'fraud',
      'must be one of: fraud_confirmed, chargeback, account_takeover, credential_stuffing, fraud_watch, spam, scraping, bot_activity, abuse_other, legitimate, false_positive',
    ],
    ['severity', 'extreme', 'must be one of: info, low, medium, high, critical'],
    [
      'sharePolicy',
      'tlp_white',
      'must be one of: clear_share, green_share, amber_share, amber_strict_share, red_share',
    ],
    ['visibility', 'public', 'must be one of: workspace, community'],
    ['eventType', 'incident', 'must be one of: observation, outcome, alert'],
    ['status', 'closed', 'must be one of: "" (empty), open, confirmed, disputed, resolved'],
  ])('refuses %s %j and lists the vocabulary', (field, value, message) => {
    expect(detailsOf({ ...base, [field]: value })).toEqual([{ field, message }]);
  });

  it('refuses an unknown related-subject role', () => {
    expect(
      detailsOf({ ...base, relatedSubjects: [{ kind: 'ipaddress', key: '192.0.2.1', role: 'attacker' }] }),
    ).toEqual([
      {
        field: 'relatedSubjects[0].role',
        message: expect.stringMatching(/^must be one of: source_ip, destination_ip, .*, linked$/),
      },
    ]);
  });

  it.each([
    ['title', 200, false],
    ['summary', 500, true],
    ['details', 10_000, true],
  ] as const)('%s: exactly %i characters pass, one more fails', (field, max, multiline) => {
    expect(check({ ...base, [field]: 'x'.repeat(max) })).toMatchObject({ data: { [field]: 'x'.repeat(max) } });
    expect(detailsOf({ ...base, [field]: 'x'.repeat(max + 1) })).toEqual([
      { field, message: `must be at most ${max} characters` },
    ]);
    const withBreak = check({ ...base, [field]: 'a\nb' });
    if (multiline) expect(withBreak).toMatchObject({ data: { [field]: 'a\nb' } });
    else
      expect(withBreak).toEqual({
        details: [{ field, message: 'must not contain control characters (found U+000A)' }],
      });
  });

  it('refuses NUL and lone surrogates in free text', () => {
    expect(detailsOf({ ...base, details: 'a\u0000b' })).toEqual([
      { field: 'details', message: 'must not contain control characters (found U+0000)' },
    ]);
    expect(detailsOf({ ...base, summary: 'a\udc00' })).toEqual([
      { field: 'summary', message: 'must be well-formed Unicode (it contains a lone surrogate)' },
    ]);
  });

  it('tags: 20 pass, 21 fail; each tag 40 characters pass, 41 fail; format is checked per tag', () => {
    const tags20 = Array.from({ length: 20 }, (_, i) => `t${i}`);
    expect(check({ ...base, tags: tags20 })).toMatchObject({ data: { tags: tags20 } });
    expect(detailsOf({ ...base, tags: [...tags20, 't20'] })).toEqual([
      { field: 'tags', message: 'must have at most 20 tags' },
    ]);
    expect(check({ ...base, tags: ['x'.repeat(40)] })).toMatchObject({ data: { tags: ['x'.repeat(40)] } });
    expect(detailsOf({ ...base, tags: ['ok', 'x'.repeat(41), '-lead', 'has space', '  ', 7] })).toEqual([
      { field: 'tags[5]', message: 'must be a string' },
    ]);
    expect(detailsOf({ ...base, tags: ['ok', 'x'.repeat(41), '-lead', 'has space', '  '] })).toEqual([
      { field: 'tags[1]', message: 'must be at most 40 characters' },
      { field: 'tags[2]', message: expect.stringContaining('may contain only a-z, 0-9') },
      { field: 'tags[3]', message: expect.stringContaining('may contain only a-z, 0-9') },
      { field: 'tags[4]', message: 'must not be empty' },
    ]);
  });

  it('relatedSubjects: 50 pass, 51 fail', () => {
    const related = (n: number) => Array.from({ length: n }, (_, i) => ({ kind: 'transaction', key: `tx-${i}` }));
    expect(check({ ...base, relatedSubjects: related(50) })).toMatchObject({
      data: { relatedSubjects: expect.any(Array) },
    });
    expect(detailsOf({ ...base, relatedSubjects: related(51) })).toEqual([
      { field: 'relatedSubjects', message: 'must have at most 50 related subjects' },
    ]);
  });

  it('points at the exact related subject and field that is wrong', () => {
    expect(
      detailsOf({
        ...base,
        relatedSubjects: [
          { kind: 'ipaddress', key: '192.0.2.1' },
          { kind: 'ipaddress', key: '192.0.2' },
          { kind: 'galaxy', key: 'x' },
          { kind: 'url', key: 'https://u:p@example.com/', rol: 'typo' },
        ],
      }),
    ).toEqual([
      { field: 'relatedSubjects[1].key', message: 'is not a valid IPv4 or IPv6 address (kind ipaddress)' },
      { field: 'relatedSubjects[2].kind', message: expect.stringContaining('must be one of:') },
      { field: 'relatedSubjects[3].rol', message: 'is not a known field' },
      { field: 'relatedSubjects[3].key', message: expect.stringContaining('must not contain credentials') },
    ]);
  });

  it('refuses a related subject that is the main subject once both are normalised', () => {
    expect(
      detailsOf({
        ...base,
        relatedSubjects: [
          { kind: 'ipaddress', key: '192.0.2.1' },
          { kind: 'domain', key: 'EXAMPLE.com.', role: 'domain' },
        ],
      }),
    ).toEqual([
      {
        field: 'relatedSubjects[1].key',
        message: "is the report's own subject (kind and key); list only other subjects",
      },
    ]);
  });

  it('namespace: 64 characters pass, 65 fail, bad characters fail', () => {
    expect(check({ ...base, namespace: 'n'.repeat(64) })).toMatchObject({ data: { namespace: 'n'.repeat(64) } });
    const message = expect.stringContaining('must be empty or 1-64 characters');
    expect(detailsOf({ ...base, namespace: 'n'.repeat(65) })).toEqual([{ field: 'namespace', message }]);
    expect(detailsOf({ ...base, namespace: '_private' })).toEqual([{ field: 'namespace', message }]);
    expect(detailsOf({ ...base, namespace: 'a/b' })).toEqual([{ field: 'namespace', message }]);
  });

  it('refuses unknown top-level fields (e.g. a snake_case name that was not converted)', () => {
    expect(detailsOf({ ...base, outcome_code: 'spam' })).toEqual([
      { field: 'outcome_code', message: 'is not a known field' },
    ]);
  });
});
