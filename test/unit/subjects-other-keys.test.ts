import { describe, expect, it } from 'vitest';
import { normalizeSubjectKey } from '../../src/domain/subjects/normalize.ts';
import { SUBJECT_KIND_CODES, type SubjectKind } from '../../src/domain/subjects/kinds.ts';
import { codePointLength, textProblem } from '../../src/domain/subjects/text.ts';

const good = (key: string) => ({ ok: true, key });
const bad = (fragment: string) => ({ ok: false, reason: expect.stringContaining(fragment) });

describe('phone keys (E.164)', () => {
  it.each([
    ['+14155550123', '+14155550123'],
    ['+1 (415) 555-0123', '+14155550123'],
    ['+44 20 7946 0958', '+442079460958'],
    ['+49.30.123456', '+4930123456'],
    ['+12345678', '+12345678'],
    ['+123456789012345', '+123456789012345'],
  ])('%j → %j', (input, key) => {
    expect(normalizeSubjectKey('phone', input)).toEqual(good(key));
  });

  it.each([
    ['4155550123', 'starting with "+"'],
    ['0044 20 7946 0958', 'starting with "+"'],
    ['+1234567', '8 to 15 digits after "+" (got 7)'],
    ['+1234567890123456', '8 to 15 digits after "+" (got 16)'],
    ['+0123456789', 'never begins with 0'],
    ['+1 415 555 O123', 'only "+", digits'],
    ['+1-415-555-0123 ext 5', 'only "+", digits'],
    ['', 'empty'],
  ])('refuses %j', (input, reason) => {
    expect(normalizeSubjectKey('phone', input)).toEqual(bad(reason));
  });
});

describe('organization keys', () => {
  it.each([
    ['ACME  Corp', 'acme corp'],
    ['  Example\u00a0Holdings   Ltd ', 'example holdings ltd'],
    ['Cafe\u0301 Müller', 'café müller'],
  ])('%j → %j', (input, key) => {
    expect(normalizeSubjectKey('organization', input)).toEqual(good(key));
  });

  it('normalises the decomposed and composed spellings to one key (NFC)', () => {
    const a = normalizeSubjectKey('organization', 'Cafe\u0301');
    const b = normalizeSubjectKey('organization', 'Café');
    expect(a).toEqual(b);
  });

  it('allows exactly 200 characters and refuses 201', () => {
    expect(normalizeSubjectKey('organization', 'x'.repeat(200))).toEqual(good('x'.repeat(200)));
    expect(normalizeSubjectKey('organization', 'x'.repeat(201))).toEqual(bad('at most 200'));
  });

  it('refuses an empty or blank name', () => {
    expect(normalizeSubjectKey('organization', '   ')).toEqual(bad('empty'));
  });
});

describe.each(['transaction', 'account'] as const)('%s keys (opaque ids)', (kind) => {
  it('keeps case and trims outer spaces', () => {
    expect(normalizeSubjectKey(kind, '  TxN-00AbC/42 ')).toEqual(good('TxN-00AbC/42'));
  });

  it('allows exactly 128 characters and refuses 129', () => {
    expect(normalizeSubjectKey(kind, 'A'.repeat(128))).toEqual(good('A'.repeat(128)));
    expect(normalizeSubjectKey(kind, 'A'.repeat(129))).toEqual(bad('at most 128'));
  });

  it('refuses inner whitespace and empty ids', () => {
    expect(normalizeSubjectKey(kind, 'abc def')).toEqual(bad('whitespace'));
    expect(normalizeSubjectKey(kind, '')).toEqual(bad('empty'));
  });
});

describe('text hygiene for every kind', () => {
  const sample: Record<SubjectKind, string> = {
    ipaddress: '192.0.2.1',
    cidr: '192.0.2.0/24',
    asn: '13335',
    domain: 'example.com',
    url: 'https://example.com/',
    email: 'a@example.com',
    phone: '+14155550123',
    organization: 'acme',
    transaction: 'tx1',
    account: 'acct1',
  };

  it.each(SUBJECT_KIND_CODES)(
    '%s: the sample key is valid, and NUL, ESC, DEL and a lone surrogate are refused',
    (kind) => {
      expect(normalizeSubjectKey(kind, sample[kind])).toMatchObject({ ok: true });
      expect(normalizeSubjectKey(kind, `${sample[kind]}\u0000`)).toEqual(bad('control characters (found U+0000)'));
      expect(normalizeSubjectKey(kind, `\u001b${sample[kind]}`)).toEqual(bad('control characters (found U+001B)'));
      expect(normalizeSubjectKey(kind, `${sample[kind]}\u007f`)).toEqual(bad('control characters (found U+007F)'));
      expect(normalizeSubjectKey(kind, `${sample[kind]}\ud800`)).toEqual(bad('well-formed Unicode'));
    },
  );

  it('refuses keys over 4096 characters before any kind-specific work', () => {
    expect(normalizeSubjectKey('organization', ' '.repeat(4097))).toEqual(bad('too long'));
  });

  it('refuses an unknown kind instead of throwing', () => {
    expect(normalizeSubjectKey('planet' as SubjectKind, 'mars')).toEqual(bad('unknown kind "planet"'));
  });
});

describe('textProblem and codePointLength', () => {
  it('lets \\n and \\t through only for multiline text, and names carriage returns', () => {
    expect(textProblem('a\nb\tc', true)).toBe('');
    expect(textProblem('a\nb')).toContain('U+000A');
    expect(textProblem('a\tb')).toContain('U+0009');
    expect(textProblem('a\r\nb', true)).toContain('use \\n alone');
    expect(textProblem('\u0085', true)).toContain('U+0085');
  });

  it('counts code points, not UTF-16 units', () => {
    expect(codePointLength('😀😀')).toBe(2);
    expect('😀😀'.length).toBe(4);
  });
});
