import { describe, expect, it } from 'vitest';
import { normalizeSubjectKey } from '../../src/domain/subjects/normalize.ts';

const good = (key: string) => ({ ok: true, key });
const bad = (fragment: string) => ({ ok: false, reason: expect.stringContaining(fragment) });
const label63 = 'a'.repeat(63);

describe('domain keys', () => {
  it.each([
    ['example.com', 'example.com'],
    ['  WWW.Example.COM. ', 'www.example.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['BÜCHER.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['ｅｘａｍｐｌｅ．ｃｏｍ', 'example.com'],
    ['a-b.c0.example', 'a-b.c0.example'],
    [`${label63}.com`, `${label63}.com`],
    [
      `${[label63, label63, label63, 'a'.repeat(57)].join('.')}.com`,
      `${[label63, label63, label63, 'a'.repeat(57)].join('.')}.com`,
    ],
  ])('%j → %j', (input, key) => {
    expect(normalizeSubjectKey('domain', input)).toEqual(good(key));
  });

  it.each([
    ['localhost', 'at least two labels'],
    ['192.0.2.1', 'IP address'],
    ['0x7f.1', 'IP address'],
    ['example.0x1f', 'IP address'],
    ['a_b.example', 'invalid label "a_b"'],
    ['-a.example', 'invalid label "-a"'],
    ['a-.example', 'invalid label "a-"'],
    ['a..example', 'empty label'],
    ['.example.com', 'empty label'],
    [`${'a'.repeat(64)}.com`, 'longer than 63'],
    [`${[label63, label63, label63, 'a'.repeat(58)].join('.')}.com`, 'at most 253'],
    ['https://example.com', 'contains ":"'],
    ['user@example.com', 'contains "@"'],
    ['exa mple.com', 'contains " "'],
    ['', 'empty'],
    ['.', 'empty'],
  ])('refuses %j', (input, reason) => {
    expect(normalizeSubjectKey('domain', input)).toEqual(bad(reason));
  });
});

describe('url keys', () => {
  it.each([
    ['https://example.com/a?b=1', 'https://example.com/a?b=1'],
    ['HTTPS://WWW.EXAMPLE.COM/Path/Case?Q=Keep', 'https://www.example.com/Path/Case?Q=Keep'],
    ['http://example.com:80/x', 'http://example.com/x'],
    ['https://example.com:443/', 'https://example.com/'],
    ['https://example.com:8443/', 'https://example.com:8443/'],
    ['https://example.com/page#section', 'https://example.com/page'],
    ['https://example.com/?', 'https://example.com/'],
    ['https://example.com./a', 'https://example.com/a'],
    ['https://bücher.example/ä', 'https://xn--bcher-kva.example/%C3%A4'],
    ['http://[2001:DB8::1]:8080/', 'http://[2001:db8::1]:8080/'],
    ['http://[::ffff:192.0.2.1]/', 'http://192.0.2.1/'],
    ['http://192.0.2.1/login', 'http://192.0.2.1/login'],
    ['https://example.com/a/../b', 'https://example.com/b'],
  ])('%j → %j', (input, key) => {
    expect(normalizeSubjectKey('url', input)).toEqual(good(key));
  });

  it('accepts exactly 2048 characters and refuses 2049', () => {
    const base = 'https://example.com/';
    const at = base + 'a'.repeat(2048 - base.length);
    expect(normalizeSubjectKey('url', at)).toEqual(good(at));
    expect(normalizeSubjectKey('url', `${at}a`)).toEqual(bad('at most 2048'));
  });

  it.each([
    ['ftp://example.com/file', 'http or https (got ftp)'],
    ['javascript:alert(1)', 'http or https'],
    ['example.com/path', 'absolute URL'],
    ['https://user:secret@example.com/', 'credentials'],
    ['https://user@example.com/', 'credentials'],
    ['https://localhost/', 'at least two labels'],
    ['https://a_b.example.com/', 'invalid label'],
    ['', 'empty'],
  ])('refuses %j', (input, reason) => {
    expect(normalizeSubjectKey('url', input)).toEqual(bad(reason));
  });
});

describe('email keys', () => {
  it.each([
    ['Alice.Smith@Example.COM', 'Alice.Smith@example.com'],
    ['  bob+tag@example.com ', 'bob+tag@example.com'],
    ['user@bücher.example', 'user@xn--bcher-kva.example'],
    ['josé@example.com', 'josé@example.com'],
    [`${'a'.repeat(64)}@example.com`, `${'a'.repeat(64)}@example.com`],
  ])('%j → %j', (input, key) => {
    expect(normalizeSubjectKey('email', input)).toEqual(good(key));
  });

  it('accepts exactly 254 characters and refuses 255', () => {
    const domain = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`; // 195 chars
    const at254 = `${'a'.repeat(254 - domain.length - 1)}@${domain}`;
    expect(at254).toHaveLength(254);
    expect(normalizeSubjectKey('email', at254)).toEqual(good(at254));
    const domain2 = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.coms`;
    expect(normalizeSubjectKey('email', `${'a'.repeat(254 - domain.length - 1)}@${domain2}`)).toEqual(
      bad('at most 254'),
    );
  });

  it.each([
    ['no-at.example.com', 'exactly one "@"'],
    ['a@b@example.com', 'exactly one "@"'],
    ['@example.com', 'local part'],
    [`${'a'.repeat(65)}@example.com`, 'at most 64 octets'],
    ['a..b@example.com', 'invalid local part'],
    ['.a@example.com', 'invalid local part'],
    ['"quoted"@example.com', 'invalid local part'],
    ['a b@example.com', 'invalid local part'],
    ['user@localhost', 'at least two labels'],
    ['user@[192.0.2.1]', 'address literal'],
  ])('refuses %j', (input, reason) => {
    expect(normalizeSubjectKey('email', input)).toEqual(bad(reason));
  });
});

describe('domain keys that only look numeric after IDNA mapping', () => {
  it('refuses an IPv4 address written in full-width digits (IDNA maps it to 192.0.2.1)', () => {
    expect(normalizeSubjectKey('domain', '１９２．０．２．１')).toEqual(bad('IP address'));
  });
});
