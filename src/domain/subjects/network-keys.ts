import ipaddr from 'ipaddr.js';
import { parseIp } from '../network/ip.ts';
import type { KeyResult } from './kinds.ts';

const fail = (reason: string): KeyResult => ({ ok: false, reason });

export function normalizeIpKey(input: string): KeyResult {
  const parsed = parseIp(input);
  return parsed.ok ? { ok: true, key: parsed.canonical } : fail(parsed.reason);
}

/** Zero every bit after the first `prefix` bits. */
function maskBytes(bytes: number[], prefix: number): number[] {
  return bytes.map((byte, i) => {
    const keep = Math.min(Math.max(prefix - i * 8, 0), 8);
    return byte & (0xff << (8 - keep)) & 0xff;
  });
}

function ipv6Text(bytes: number[]): string {
  const parts = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  return new ipaddr.IPv6(parts).toRFC5952String();
}

/**
 * "address/prefix". The address part goes through parseIp (strict IPv4, RFC 5952 IPv6); the
 * key is the network address, so "10.1.2.3/8" and "10.0.0.0/8" are one subject.
 * IPv4-mapped IPv6 networks ("::ffff:10.0.0.0/104") are the IPv4 network they carry
 * (prefix - 96), matching how parseIp treats mapped addresses; below /96 they would
 * cover non-mapped IPv6 space, so they are refused.
 */
export function normalizeCidrKey(input: string): KeyResult {
  const text = input.trim();
  const slash = text.indexOf('/');
  if (slash < 0) return fail('must be a network in CIDR notation, address/prefix (e.g. 192.0.2.0/24)');
  const lengthText = text.slice(slash + 1);
  if (!/^(0|[1-9]\d{0,2})$/.test(lengthText)) return fail('must end in a decimal prefix length, e.g. /24');
  const address = text.slice(0, slash);
  const parsed = parseIp(address);
  if (!parsed.ok) return fail(`has an address part that ${parsed.reason}`);
  let prefix = Number(lengthText);
  const mapped = parsed.version === 4 && address.includes(':');
  if (mapped) {
    if (prefix < 96 || prefix > 128)
      return fail('has an IPv4-mapped IPv6 address, whose prefix length must be 96 to 128');
    prefix -= 96;
  }
  const bits = parsed.version === 4 ? 32 : 128;
  if (prefix > bits)
    return fail(`has a prefix length over ${bits} (the most an IPv${parsed.version} network can have)`);
  const network = maskBytes(parsed.bytes, prefix);
  const text4or6 = parsed.version === 4 ? network.join('.') : ipv6Text(network);
  return { ok: true, key: `${text4or6}/${prefix}` };
}

// 0 (RFC 7607), AS_TRANS 23456 (RFC 6793), 65535 and 4294967295 (RFC 7300) are reserved and
// never originate routes, so a report about them is a typo. Private-use and documentation ASNs
// are accepted: they show up in internal networks and in examples.
const RESERVED_ASNS = new Map([
  [0, 'RFC 7607'],
  [23456, 'AS_TRANS, RFC 6793'],
  [65535, 'RFC 7300'],
  [4294967295, 'RFC 7300'],
]);
const MAX_ASN = 4294967295;

/** "13335", "AS13335", "as13335" or asdot "1.10" (RFC 5396, = 65546) → "13335". */
export function normalizeAsnKey(input: string): KeyResult {
  const text = input.trim().replace(/^as\s*/i, '');
  let asn: number;
  const dot = /^(\d{1,5})\.(\d{1,5})$/.exec(text);
  if (dot) {
    const high = Number(dot[1]);
    const low = Number(dot[2]);
    if (high > 65535 || low > 65535) return fail('in asdot form must be two numbers of 0-65535, e.g. 1.10');
    asn = high * 65536 + low;
  } else if (/^\d{1,10}$/.test(text)) {
    asn = Number(text);
  } else {
    return fail('must be an AS number such as 13335 or AS13335');
  }
  if (asn > MAX_ASN) return fail(`must be at most ${MAX_ASN} (ASNs are 32-bit)`);
  const reserved = RESERVED_ASNS.get(asn);
  if (reserved) return fail(`is reserved (AS${asn}, ${reserved}) and never identifies a network`);
  return { ok: true, key: String(asn) };
}
