import { parseIp } from '../network/ip.ts';
import { normalizeDomain } from './domain.ts';
import type { KeyResult } from './kinds.ts';

const fail = (reason: string): KeyResult => ({ ok: false, reason });

export const MAX_URL_LENGTH = 2048;

/**
 * WHATWG URL parsing (what browsers do): scheme and host lower-cased, IDN hosts to punycode,
 * dot segments resolved, default port dropped. On top of that: only http(s); credentials
 * refused (a URL with user:pass@ would store a secret); fragment dropped (never sent to the
 * server, so it cannot distinguish two resources); host checked as a domain or made a
 * canonical IP, so a URL's host matches the domain/ipaddress subject of the same name.
 */
export function normalizeUrlKey(input: string): KeyResult {
  const text = input.trim();
  if (text.length === 0) return fail('must not be empty');
  if (text.length > MAX_URL_LENGTH) return fail(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail('is not an absolute URL (expected e.g. https://example.com/path)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return fail(`must use http or https (got ${url.protocol.slice(0, -1)})`);
  }
  if (url.username !== '' || url.password !== '') {
    return fail('must not contain credentials (user:password@): remove them before reporting so no secret is stored');
  }
  const bracketed = url.hostname.startsWith('[');
  const ip = parseIp(bracketed ? url.hostname.slice(1, -1) : url.hostname);
  if (ip.ok) {
    url.hostname = ip.version === 6 ? `[${ip.canonical}]` : ip.canonical;
  } else {
    const host = normalizeDomain(url.hostname);
    if (!host.ok) return fail(`has a host that ${host.reason}`);
    url.hostname = host.key;
  }
  url.hash = '';
  if (url.search === '') url.search = ''; // drops a bare trailing "?"
  const key = url.href;
  if (key.length > MAX_URL_LENGTH)
    return fail(`must be at most ${MAX_URL_LENGTH} characters once normalised (percent-encoding made it longer)`);
  return { ok: true, key };
}

// RFC 5322 dot-atom characters, plus any non-ASCII character (RFC 6531 internationalised mail).
const LOCAL_PART =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\u{10FFFF}-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\u{10FFFF}-]+)*$/u;

/** local@domain: local part kept byte for byte (RFC 5321 says it is case-sensitive); domain normalised. */
export function normalizeEmailKey(input: string): KeyResult {
  const text = input.trim();
  const at = text.indexOf('@');
  if (at < 0 || at !== text.lastIndexOf('@')) return fail('must contain exactly one "@"');
  const local = text.slice(0, at);
  const domainPart = text.slice(at + 1);
  if (local.length === 0) return fail('must have a local part before "@"');
  if (Buffer.byteLength(local, 'utf8') > 64) return fail('must have a local part of at most 64 octets (RFC 5321)');
  if (!LOCAL_PART.test(local)) {
    return fail(
      "has an invalid local part: use letters, digits and !#$%&'*+/=?^_`{|}~- separated by single dots (quoted local parts are not supported)",
    );
  }
  if (domainPart.startsWith('[')) return fail('must have a domain name after "@", not an address literal');
  const domain = normalizeDomain(domainPart);
  if (!domain.ok) return fail(`has a domain that ${domain.reason}`);
  const key = `${local}@${domain.key}`;
  if (key.length > 254) return fail('must be at most 254 characters (RFC 5321 path limit)');
  return { ok: true, key };
}

/**
 * E.164: "+", a country code whose first digit is not 0, 8-15 digits in all. Separators people
 * type (spaces, dashes, dots, parentheses) are removed. A national number without "+" is
 * refused: its country cannot be known, so it could match the wrong subscriber.
 */
export function normalizePhoneKey(input: string): KeyResult {
  const compact = input.trim().replace(/[\s\-.()]/gu, '');
  if (compact.length === 0) return fail('must not be empty');
  if (!compact.startsWith('+'))
    return fail('must be in international E.164 form starting with "+" and the country code, e.g. +14155550123');
  if (!/^\+\d+$/.test(compact)) return fail('may contain only "+", digits, spaces, dashes, dots and parentheses');
  if (compact[1] === '0') return fail('must start with a country code, which never begins with 0');
  const digits = compact.length - 1;
  if (digits < 8 || digits > 15) return fail(`must have 8 to 15 digits after "+" (got ${digits})`);
  return { ok: true, key: compact };
}
