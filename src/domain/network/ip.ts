import { AppError } from '../../errors.ts';
import ipaddr from 'ipaddr.js';

/** A parsed IP address in its one canonical text form (what we store and key on). */
export type ParsedIp = { ok: true; canonical: string; version: 4 | 6; bytes: number[] };
export type IpParseFailure = { ok: false; reason: string };

const IPV4_STRICT = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6_CHARS = /^[0-9a-fA-F:.]+$/;

/**
 * Parse an untrusted IP string.
 * - IPv4 must be a strict dotted quad: leading zeros ("010.1.1.1") are refused because
 *   some stacks read them as octal, so the address they mean is ambiguous; so must the
 *   dotted tail of an IPv6 address ("::ffff:1.2.3.4").
 * - IPv6 is printed in RFC 5952 form (lower case, longest zero run compressed).
 * - Zone ids ("fe80::1%eth0") are refused: they only mean something on the sender's host.
 * - IPv4-mapped IPv6 ("::ffff:1.2.3.4") is the IPv4 address it carries, so it is
 *   canonicalised to "1.2.3.4" and scored as that address.
 */
export function parseIp(input: unknown): ParsedIp | IpParseFailure {
  if (typeof input !== 'string') return { ok: false, reason: 'must be a string' };
  const text = input.trim();
  if (text.length === 0) return { ok: false, reason: 'must not be empty' };
  if (text.length > 45) return { ok: false, reason: 'is too long to be an IP address' };
  if (text.includes('%')) return { ok: false, reason: 'must not carry an IPv6 zone id' };
  if (IPV4_STRICT.test(text)) {
    const bytes = text.split('.').map(Number);
    return { ok: true, canonical: bytes.join('.'), version: 4, bytes };
  }
  const hex = text.includes(':') && IPV6_CHARS.test(text) ? dottedTailToHex(text) : null;
  if (hex === null || !ipaddr.IPv6.isValid(hex)) {
    return { ok: false, reason: 'is not a valid IPv4 or IPv6 address' };
  }
  const v6 = ipaddr.IPv6.parse(hex);
  const bytes = v6.toByteArray();
  // IPv4-mapped: ::ffff:0:0/96.
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    const v4 = bytes.slice(12);
    return { ok: true, canonical: v4.join('.'), version: 4, bytes: v4 };
  }
  return { ok: true, canonical: v6.toRFC5952String(), version: 6, bytes };
}

/**
 * An IPv6 text with a dotted IPv4 tail ("::ffff:1.2.3.4") rewritten to hex groups, so ipaddr.js
 * parses every spelling of one address alike: it reads "::1.2.3.4" as "::ffff:1.2.3.4" (but
 * "::102:304" as itself) and accepts leading zeros in the tail. The tail follows the IPv4 rule
 * (strict dotted quad); null when it does not.
 */
function dottedTailToHex(text: string): string | null {
  if (!text.includes('.')) return text;
  const cut = text.lastIndexOf(':') + 1;
  const tail = text.slice(cut);
  if (!IPV4_STRICT.test(tail)) return null;
  const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number];
  return `${text.slice(0, cut)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** A canonical IP from a caller's argument, or invalid_request naming `field`. */
export function requireIp(input: unknown, field = 'ip'): string {
  const parsed = parseIp(input);
  if (!parsed.ok)
    throw new AppError('invalid_request', `${field} ${parsed.reason}.`, [{ field, message: parsed.reason }]);
  return parsed.canonical;
}
