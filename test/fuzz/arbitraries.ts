import fc from 'fast-check';
import { isIPv4 } from 'node:net';
import { OUTCOME_CODES, ROLE_CODES, SEVERITY_CODES, SHARE_POLICY_CODES } from '../../src/domain/memory/vocabulary.ts';
import { SUBJECT_KIND_CODES } from '../../src/domain/subjects/kinds.ts';

/**
 * Shared fast-check arbitraries of hostile input: odd Unicode, IP strings of every kind (with
 * what the server must answer where that is known), JSON values and shapes, raw bodies that are
 * not JSON, and header sets. The case count of every property comes from FUZZ_RUNS.
 */

/** Cases per endpoint: a few hundred in the normal run, `npm run fuzz` sets 10,000. */
export const FUZZ_RUNS = Math.max(1, Math.floor(Number(process.env.FUZZ_RUNS ?? 200)) || 200);
/** Summary tables are printed when the count was chosen (`npm run fuzz`), not in the normal test run. */
export const FUZZ_REPORT = process.env.FUZZ_RUNS !== undefined;
/** Replays a failing run: the seed is printed in every failure. */
export const FUZZ_SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
export const fuzzParameters = (runs = FUZZ_RUNS): fc.Parameters<unknown> => ({
  numRuns: runs,
  ...(FUZZ_SEED === undefined ? {} : { seed: FUZZ_SEED }),
});
/** A test's own time budget, scaled with the case count (the per-answer bound is ANSWER_TIMEOUT_MS): `perCaseMs` is
 *  a case's cost on a quiet machine, and the bound gives twenty times it, since it only catches a hang; a machine
 *  busy with other suites ran cases over ten times slower (docs/testing.md). */
export const fuzzTimeout = (perCaseMs: number, runs = FUZZ_RUNS) => 120_000 + runs * perCaseMs * 20;

// ---------------------------------------------------------------- text

/** Characters that break naive code: controls, NUL, bidi overrides, separators, lone surrogates, non-characters, look-alikes. */
export const ODD_PIECES = [
  '\u0000',
  '\u0001',
  '\u0008',
  '\u001b[31m',
  '\u007f',
  '\u0085',
  '\u009b',
  '\u00a0',
  '\u00ad',
  '\u034f',
  '\u061c',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u2028',
  '\u2029',
  '\u3000',
  '\ufeff',
  '\ufffc',
  '\ufffd',
  '\ufffe',
  '\uffff',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\udc00\ud800',
  '\ud83d\ude00',
  '\ud83d',
  '\u{10ffff}',
  '\u{e0001}',
  '\u{1f469}\u200d\u{1f4bb}',
  'e\u0301',
  'A\u030a',
  '\u0130',
  '\u0131',
  'ß',
  'ﬀ',
  'Ａ',
  '١',
  '٣',
  '０',
  '𝟏',
  'ⅰ',
  '①',
  'К',
  'ο',
  '\u05d0',
  '\u0627\u0644',
  '\r',
  '\n',
  '\r\n',
  '\t',
  '\v',
  '\f',
  ' ',
  '  ',
  '"',
  "'",
  '\\',
  '/',
  '<',
  '>',
  '&',
  '%',
  '%00',
  '%zz',
  '%E2%80%AE',
  '../',
  '${x}',
  '{{x}}',
  "' OR 1=1 --",
  '</script>',
  '__proto__',
  'constructor',
  'null',
  'NaN',
  '-0',
  '1e999',
  '0x10',
  '٫',
] as const;

/** Strings of odd pieces and random code points (including lone surrogates and astral planes). */
export const oddString = (maxPieces = 8): fc.Arbitrary<string> =>
  fc
    .array(
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...ODD_PIECES) },
        { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
        { weight: 2, arbitrary: fc.string({ maxLength: 8 }) },
        { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) },
      ),
      { maxLength: maxPieces },
    )
    .map((p) => p.join(''));

/** Byte sequences that are not UTF-8: overlong forms, encoded surrogates, stray continuation bytes, truncated sequences. */
export const BAD_UTF8: readonly Buffer[] = [
  [0xc0, 0xaf],
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0xaf],
  [0xe0, 0x80, 0x80],
  [0xf0, 0x80, 0x80, 0xaf],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0x80],
  [0xbf],
  [0xfe],
  [0xff],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xf4, 0x90, 0x80, 0x80],
].map((b) => Buffer.from(b));

// ---------------------------------------------------------------- IP addresses

/** An IP string and, where the rules decide it, what the server must answer: the canonical form, or a refusal. */
export type IpCase = { text: string; expect: { valid: true; canonical: string } | { valid: false } | null };

/** RFC 5952 form via WHATWG URL (an implementation independent of the server's ipaddr.js); IPv4-mapped becomes IPv4. */
export function canonicalIpv6(text: string): string {
  const host = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!mapped) return host;
  const hi = parseInt(mapped[1]!, 16),
    lo = parseInt(mapped[2]!, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

const octet = fc.integer({ min: 0, max: 255 });
const v4 = fc.tuple(octet, octet, octet, octet).map((o) => o.join('.'));
const hexGroup = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
/** Unicode whitespace that String.prototype.trim removes (the server trims IPs). */
const trimmable = fc.constantFrom(' ', '\t', '\n', '\r', '\u00a0', '\u2028', '\u2029', '\ufeff', '\u3000', '\u2003');

const validIp: fc.Arbitrary<IpCase> = fc.oneof(
  fc.ipV4().map((text) => ({ text, expect: { valid: true as const, canonical: text } })),
  fc.ipV6().map((text) => ({ text, expect: { valid: true as const, canonical: canonicalIpv6(text) } })),
  fc
    .ipV6()
    .map((text) => text.toUpperCase())
    .map((text) => ({ text, expect: { valid: true as const, canonical: canonicalIpv6(text) } })),
  // IPv4-mapped IPv6, dotted and hex tails: scored as the IPv4 address.
  v4.map((a) => ({ text: `::ffff:${a}`, expect: { valid: true as const, canonical: a } })),
  v4.map((a) => ({ text: `0:0:0:0:0:FFFF:${a}`, expect: { valid: true as const, canonical: a } })),
  fc.tuple(hexGroup, hexGroup).map(([h, l]) => {
    const text = `::ffff:${h}:${l}`;
    return { text, expect: { valid: true as const, canonical: canonicalIpv6(text) } };
  }),
  fc
    .tuple(
      fc.array(trimmable, { minLength: 1, maxLength: 3 }),
      fc.oneof(fc.ipV4(), fc.ipV6()),
      fc.array(trimmable, { maxLength: 3 }),
    )
    .map(([l, ip, r]) => ({
      text: l.join('') + ip + r.join(''),
      expect: { valid: true as const, canonical: isIPv4(ip) ? ip : canonicalIpv6(ip) },
    })),
);

const invalid = (text: string): IpCase => ({ text, expect: { valid: false } });
const invalidIp: fc.Arbitrary<IpCase> = fc.oneof(
  // Leading zeros and octal-looking parts: ambiguous, refused.
  fc.tuple(v4, fc.integer({ min: 0, max: 3 }), fc.constantFrom('0', '00', '000')).map(([a, i, z]) =>
    invalid(
      a
        .split('.')
        .map((p, j) => (j === i ? z + p : p))
        .join('.'),
    ),
  ),
  fc
    .constantFrom(
      '0127.0.0.1',
      '010.010.010.010',
      '00.0.0.0',
      '1.2.3.04',
      '0377.0377.0377.0377',
      '::ffff:01.2.3.4',
      '::ffff:1.2.3.010',
    )
    .map(invalid),
  // Other historic inet_aton forms: hex parts, fewer parts, one integer.
  fc
    .ipV4Extended()
    .filter((t) => !/^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(t))
    .map(invalid),
  fc
    .constantFrom(
      '127.1',
      '10.1.1',
      '2130706433',
      '0x7f000001',
      '0x7f.0.0.1',
      '1.2.3',
      '1.2.3.4.5',
      '1.2.3.4.',
      '.1.2.3.4',
      '1..2.3',
    )
    .map(invalid),
  fc.tuple(v4, fc.integer({ min: 0, max: 3 }), fc.integer({ min: 256, max: 99999 })).map(([a, i, n]) =>
    invalid(
      a
        .split('.')
        .map((p, j) => (j === i ? String(n) : p))
        .join('.'),
    ),
  ),
  // Zone ids, in every spelling.
  fc
    .tuple(fc.ipV6(), fc.constantFrom('%eth0', '%1', '%25eth0', '%', '%en0%', '%\u202e0', '%lo0 '))
    .map(([a, z]) => invalid(a + z)),
  // Ports, brackets, prefixes, URLs.
  fc.tuple(v4, fc.integer({ min: 0, max: 65535 })).map(([a, p]) => invalid(`${a}:${p}`)),
  fc.ipV6().map((a) => invalid(`[${a}]`)),
  fc.ipV6().map((a) => invalid(`[${a}]:443`)),
  fc.tuple(v4, fc.integer({ min: 0, max: 32 })).map(([a, n]) => invalid(`${a}/${n}`)),
  fc.tuple(fc.ipV6(), fc.integer({ min: 0, max: 128 })).map(([a, n]) => invalid(`${a}/${n}`)),
  v4.map((a) => invalid(`http://${a}/`)),
  // Broken IPv6.
  fc
    .constantFrom(
      '1::2::3',
      ':::1',
      '::1::',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7',
      'g::1',
      '12345::1',
      '::ffff:1.2.3',
      '::ffff:256.1.1.1',
      '1:2:3:4:5:6:7:1.2.3.4',
      ':1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:',
      '::ffff:1.2.3.4.5',
      'fe80::1%',
      '::-1',
      '::+1',
      '0x0::1',
      ':',
      '::::',
      '[::]',
    )
    .map(invalid),
  // Look-alike digits and separators, inner whitespace and controls.
  fc
    .constantFrom(
      '１.２.３.４',
      '١.٢.٣.٤',
      '𝟏.2.3.4',
      '1。2。3。4',
      '1․2․3․4',
      '1,2,3,4',
      '1 .2.3.4',
      '1.2.3.4\u00005',
      '1.2.3.4\n1.2.3.5',
      '1.2.3.4\u202e',
      '\u202e1.2.3.4',
      '1.2.3.\u200b4',
      '::ffff:１.2.3.4',
      'ff::\u0000',
      '\ud8001.2.3.4',
    )
    .map(invalid),
  // Too long (over 45 characters once trimmed), empty.
  fc.integer({ min: 46, max: 300 }).map((n) => invalid('1'.repeat(n))),
  fc.ipV6().map((a) => invalid(`${'0'.repeat(Math.max(1, 46 - a.length))}:${a}`)), // 47 characters
  fc.constantFrom('', ' ', '\t\n', '\u00a0').map(invalid),
);

/** Anything: valid, invalid and arbitrary strings (no verdict for those). */
export const ipCase: fc.Arbitrary<IpCase> = fc.oneof(
  { weight: 3, arbitrary: validIp },
  { weight: 5, arbitrary: invalidIp },
  { weight: 2, arbitrary: oddString(6).map((text) => ({ text, expect: null })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.oneof(fc.ipV4(), fc.ipV6()), oddString(2))
      .map(([ip, s]) => ({ text: ip + s, expect: null })),
  },
);

// ---------------------------------------------------------------- JSON values and shapes

/** Any JSON value, with odd strings and odd keys, a few levels deep. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(0, -0, 1, -1, 2, 1.5, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e308, 5e-324),
    oddString(),
    fc.constantFrom('1', '-1', 'true', 'null', ''),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(
      fc.oneof(
        oddString(3),
        fc.constantFrom(
          'ip',
          'rating',
          'note',
          'kind',
          'key',
          'outcome_code',
          'outcomeCode',
          '__proto__',
          'constructor',
          'prototype',
          'toString',
        ),
      ),
      tie('value'),
      { maxKeys: 5 },
    ),
  ),
})).value;

/** A value of the wrong type for a field (or a right-looking one that breaks a rule). */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -0, '', ' ', [], {}, [null], ['x'], { '': '' }, '\u0000'),
  anyJson,
);

/** Text sent where JSON is expected, and JSON text the built-in parser reads in surprising ways. */
export const brokenJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '{',
    '}',
    '{"ip":',
    '{"ip":"1.2.3.4"',
    '{"ip":"1.2.3.4",}',
    "{'ip':'1.2.3.4'}",
    '{ip:"1.2.3.4"}',
    '{"ip":"1.2.3.4"}}',
    '{"ip":"1.2.3.4"} {"ip":"1.2.3.5"}',
    '{"ip":"\\ud800"}',
    '{"ip":"\\u0000"}',
    '{"ip":"\\x41"}',
    '{"ip":01}',
    '{"ip":1e999}',
    '{"ip":-}',
    '{"ip":NaN}',
    '{"ip":Infinity}',
    '{"ip":"1.2.3.4","ip":"::1"}',
    '{"ip":"1.2.3.4","ip":null}',
    '\ufeff{"ip":"1.2.3.4"}',
    'null',
    'true',
    '42',
    '"x"',
    '[]',
    '[{"ip":"1.2.3.4"}]',
    '{"__proto__":{"ip":"1.2.3.4"}}',
    '{"constructor":{"prototype":{}}}',
    '/*c*/{}',
    '{"a":1}//',
    '\u0000',
    '{"ip":"1.2.3.4"}\u0000',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc
    .tuple(fc.integer({ min: 2, max: 20_000 }), fc.constantFrom('[', '{"a":'))
    .map(([n, open]) => `{"ip":${open.repeat(n)}${open === '[' ? ']'.repeat(n) : `1${'}'.repeat(n)}`}}`),
  fc
    .tuple(fc.integer({ min: 2, max: 20_000 }), fc.constantFrom('[', '{"a":'))
    .map(([n, open]) => `{"ip":"1.2.3.4","x":${open.repeat(n)}`),
);

/** A body over or just under the 64 KiB limit. */
export const hugeText = (max = 65_536): fc.Arbitrary<string> =>
  fc
    .integer({ min: max - 64, max: max + 4096 })
    .chain((n) =>
      fc.constantFrom(
        `{"ip":"${'1'.repeat(n)}"}`,
        `{"note":"${'\u202e'.repeat(Math.floor(n / 3))}"}`,
        `{"tags":[${Array.from({ length: Math.floor(n / 4) }, () => '"a"').join(',')}]}`,
        `${' '.repeat(n)}{}`,
      ),
    );

/** A JSON object body made of `fields`, where some fields are dropped, replaced with wrong values, or joined by unknown ones. */
export function mutatedObject(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const names = Object.keys(fields);
  return fc
    .record({
      base: fc.record(fields),
      drop: fc.subarray(names, { maxLength: Math.min(2, names.length) }),
      wrong: fc.dictionary(fc.constantFrom(...names), wrongValue, { maxKeys: 2 }),
      extra: fc.dictionary(
        fc.oneof(
          oddString(2),
          fc.constantFrom(
            '__proto__',
            'constructor',
            'Ip',
            'IP',
            'ip ',
            'outcomeCode',
            'outcome_code',
            'related-subjects',
          ),
        ),
        anyJson,
        { maxKeys: 2 },
      ),
      mutate: fc.nat(9),
    })
    .map(({ base, drop, wrong, extra, mutate }) => {
      // Mostly well-formed (so the rules behind the type checks are reached), sometimes broken.
      if (mutate < 5) return base;
      const out: Record<string, unknown> = { ...base };
      if (mutate < 7) for (const d of drop) delete out[d];
      if (mutate >= 6) Object.assign(out, wrong);
      if (mutate >= 8)
        for (const [k, v] of Object.entries(extra))
          Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      return out;
    });
}

// ---------------------------------------------------------------- the API's own fields

const codeOr = (codes: readonly string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...codes) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        oddString(3),
        fc.constantFrom(...codes).map((c) => c.toUpperCase()),
        fc.constantFrom(...codes).map((c) => ` ${c}`),
      ),
    },
  );

/** A subject key by kind: plausible ones (so normalisation runs) and hostile ones. */
const subjectKey: fc.Arbitrary<string> = fc.oneof(
  ipCase.map((c) => c.text),
  fc.domain(),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.emailAddress(),
  fc.constantFrom(
    'AS13335',
    'as 13335',
    '1.10',
    '0',
    '23456',
    '4294967295',
    '4294967296',
    'AS',
    '+1 (415) 555-0100',
    '+',
    '+0000000',
    '+1234567890123456',
    'Bücher.example',
    'xn--bcher-kva.example',
    'xn--zz.example',
    'a..b',
    '.',
    'ex_ample.com',
    '1.2.3.4.5',
    '10.0.0.0/8',
    '::/0',
    '1.2.3.4/33',
    'javascript:alert(1)',
    'http://user:pass@example.com/',
    'https://[::1]:99999/',
    'http://例え.テスト/',
    'mailto:a@b.c',
    'a@',
    '@b.c',
    '"a b"@example.com',
    'ACME  Corp ',
    'tx 1',
    'acct\u0000',
  ),
  oddString(5),
  fc.integer({ min: 4000, max: 5000 }).map((n) => 'a'.repeat(n)),
);

export const rateFields = {
  ip: ipCase.map((c) => c.text),
  rating: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(1, 0, -1) },
    { weight: 1, arbitrary: fc.constantFrom(2, -2, 1.5, 1e308, -0, 0.0, '1', true, null) },
  ),
  note: fc.oneof(
    oddString(),
    fc.constant(null),
    fc.integer({ min: 990, max: 1010 }).map((n) => 'n'.repeat(n)),
    fc.integer({ min: 990, max: 1010 }).map((n) => '\u{1f600}'.repeat(n)),
  ),
};

/** A kind with a key of that kind (mostly acceptable), so the normalisers and the write path are reached. */
const matchedSubject: fc.Arbitrary<{ kind: string; key: string }> = fc.oneof(
  ipCase.map((c) => ({ kind: 'ipaddress', key: c.text })),
  fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 33 })).map(([ip, n]) => ({ kind: 'cidr', key: `${ip}/${n}` })),
  fc.tuple(fc.ipV6(), fc.integer({ min: 0, max: 129 })).map(([ip, n]) => ({ kind: 'cidr', key: `${ip}/${n}` })),
  fc
    .oneof(
      fc.integer({ min: 0, max: 2 ** 32 }).map(String),
      fc.integer({ min: 1, max: 99999 }).map((n) => `AS${n}`),
      fc.constantFrom('as 13335', '1.10', '65535', '23456'),
    )
    .map((key) => ({ kind: 'asn', key })),
  fc
    .oneof(
      fc.domain(),
      fc.domain().map((d) => `${d.toUpperCase()}.`),
      fc.constantFrom('Bücher.example', 'пример.рф', 'xn--80ak6aa92e.com', 'a_b.example', '1.2.3.4', 'example.123'),
    )
    .map((key) => ({ kind: 'domain', key })),
  fc
    .webUrl({ withQueryParameters: true, withFragments: true, validSchemes: ['http', 'https', 'ftp', 'javascript'] })
    .map((key) => ({ kind: 'url', key })),
  fc
    .oneof(
      fc.emailAddress(),
      fc.emailAddress().map((e) => e.toUpperCase()),
    )
    .map((key) => ({ kind: 'email', key })),
  fc
    .oneof(
      fc.stringMatching(/^\+[1-9][0-9]{7,14}$/),
      fc.constantFrom('+1 (415) 555-0100', '+44.20.7946.0958', '+1234567', '+1234567890123456', '4155550100'),
    )
    .map((key) => ({ kind: 'phone', key })),
  oddString(4).map((key) => ({ kind: 'organization', key })),
  fc
    .oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/), oddString(2))
    .chain((key) => fc.constantFrom({ kind: 'transaction', key }, { kind: 'account', key })),
);

const relatedSubject: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .tuple(matchedSubject, fc.option(fc.constantFrom(...ROLE_CODES), { nil: undefined }))
    .map(([sub, role]) => (role === undefined ? sub : { ...sub, role })),
  mutatedObject({ kind: codeOr(SUBJECT_KIND_CODES), key: subjectKey, role: codeOr(ROLE_CODES) }),
);

export const reportFields = {
  kind: codeOr(SUBJECT_KIND_CODES),
  key: subjectKey,
  outcome_code: codeOr(OUTCOME_CODES),
  title: fc.oneof(
    oddString(),
    fc.integer({ min: 195, max: 205 }).map((n) => 't'.repeat(n)),
  ),
  summary: fc.oneof(oddString(), fc.constant(null)),
  details: fc.oneof(
    oddString(),
    fc.integer({ min: 9_990, max: 10_010 }).map((n) => 'd'.repeat(n)),
  ),
  severity: codeOr(SEVERITY_CODES),
  tags: fc.oneof(
    fc.array(fc.oneof(fc.constantFrom('carding', 'Wave-1', ' ato ', 'a:b', '-x', ''), oddString(2)), { maxLength: 22 }),
    fc.constant(null),
  ),
  related_subjects: fc.oneof(
    fc.array(relatedSubject, { maxLength: 4 }),
    fc.array(relatedSubject, { minLength: 48, maxLength: 53 }),
    fc.constant(null),
  ),
  share_policy: codeOr(SHARE_POLICY_CODES),
  visibility: codeOr(['workspace', 'community']),
  namespace: fc.oneof(fc.constantFrom('', 'ns', 'NS.x', '-bad', 'a'.repeat(65)), oddString(2)),
  event_type: codeOr(['observation', 'outcome', 'alert']),
  status: codeOr(['', 'open', 'confirmed', 'disputed', 'resolved']),
};

/** Only the required fields of a report, plus a random subset of the optional ones. */
export const reportBody: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    fc.oneof(
      {
        weight: 2,
        arbitrary: fc
          .tuple(matchedSubject, fc.constantFrom(...OUTCOME_CODES))
          .map(([sub, outcome_code]) => ({ ...sub, outcome_code })),
      },
      {
        weight: 1,
        arbitrary: mutatedObject({
          kind: reportFields.kind,
          key: reportFields.key,
          outcome_code: reportFields.outcome_code,
        }),
      },
    ),
    fc.subarray(
      Object.keys(reportFields).filter((k) => !['kind', 'key', 'outcome_code'].includes(k)),
      { maxLength: 5 },
    ),
    fc.record(reportFields),
  )
  .map(([base, optional, all]) => ({
    ...base,
    ...Object.fromEntries(optional.map((k) => [k, all[k as keyof typeof all]])),
  }));

// ---------------------------------------------------------------- headers

export type KeyHeaders =
  | 'good'
  | 'bearer'
  | 'missing'
  | 'unknown'
  | 'malformed'
  | 'conflicting'
  | 'repeated'
  | 'basic'
  | 'empty'
  | 'odd';

/** Which key headers a request carries (most with the real key, so the body is reached). */
export const keyHeaders: fc.Arbitrary<KeyHeaders> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('good' as const) },
  { weight: 3, arbitrary: fc.constant('bearer' as const) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<KeyHeaders>(
      'missing',
      'unknown',
      'malformed',
      'conflicting',
      'repeated',
      'basic',
      'empty',
      'odd',
    ),
  },
);

export function authHeaders(kind: KeyHeaders, secret: string, odd: string): Record<string, string | string[]> {
  switch (kind) {
    case 'good':
      return { 'x-api-key': secret };
    case 'bearer':
      return { authorization: `Bearer ${secret}` };
    case 'missing':
      return {};
    case 'unknown':
      return { 'x-api-key': `${secret.slice(0, -4)}AAAA` };
    case 'malformed':
      return { 'x-api-key': 'rk_!!' };
    case 'conflicting':
      return { 'x-api-key': secret, authorization: 'Bearer rk_other_key' };
    case 'repeated':
      return { 'x-api-key': [secret, secret] };
    case 'basic':
      return { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` };
    case 'empty':
      return { 'x-api-key': '', authorization: '' };
    // Header values are bytes: anything not latin-1 is sent as its UTF-8 bytes read as latin-1.
    case 'odd':
      return {
        'x-api-key': Buffer.from(odd, 'utf8')
          .toString('latin1')
          .replace(/[^\t\x20-\x7e\x80-\xff]/g, ''),
      };
  }
}

/** Content types: mostly JSON, then near misses and wrong ones; `null` sends none. */
export const contentType: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json ;charset=UTF-8',
      'application/json;',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      null,
      '',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'application/json-patch+json',
      'application/graphql',
      'text/json',
      'application/json; charset=utf-16',
      '*/*',
      'application/ json',
      'json',
    ),
  },
);
