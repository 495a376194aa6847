import ipaddr from 'ipaddr.js';

/** A parsed IP address in its one canonical text form (what we store and key on). */
export type ParsedIp = { ok: true; canonical: string; version: 4 | 6; bytes: number[] };
export type IpParseFailure = { ok: false; reason: string };

const IPV4_STRICT = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6_CHARS = /^[0-9a-fA-F:.]+$/;

/**
 * Parse an untrusted IP string.
 * - IPv4 must be a strict dotted quad: leading zeros ("010.1.1.1") are refused because
 *   some stacks read them as octal, so the address they mean is ambiguous.
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
  if (!text.includes(':') || !IPV6_CHARS.test(text) || !ipaddr.IPv6.isValid(text)) {
    return { ok: false, reason: 'is not a valid IPv4 or IPv6 address' };
  }
  const v6 = ipaddr.IPv6.parse(text);
  if (v6.isIPv4MappedAddress()) {
    const v4 = v6.toIPv4Address();
    return { ok: true, canonical: v4.toString(), version: 4, bytes: v4.octets.slice() };
  }
  return { ok: true, canonical: v6.toRFC5952String(), version: 6, bytes: v6.toByteArray() };
}
