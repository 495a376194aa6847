/**
 * One feed value → canonical CIDR blocks. Accepted forms:
 *   - a single address: "1.2.3.4" → "1.2.3.4/32", "2001:db8::1" → "2001:db8::1/128";
 *   - a CIDR: host bits set are NORMALISED, not rejected ("1.2.3.4/24" → "1.2.3.0/24"),
 *     because feeds in the wild often list a member address with its prefix and mean the block;
 *   - a range "first-last" (spaces around "-" allowed), decomposed into the minimal CIDR list.
 * Addresses go through `parseIp` (strict IPv4, RFC 5952 IPv6, zone ids refused). IPv4-mapped
 * IPv6 is treated as the IPv4 address it carries, so "::ffff:1.2.3.0/120" is "1.2.3.0/24";
 * a mapped prefix shorter than /96 is refused (it would reach outside the mapped space).
 */
import ipaddr from 'ipaddr.js';
import { parseIp } from '../network/ip.ts';

export type NetworkParse = { ok: true; cidrs: string[] } | { ok: false; reason: string };

const PREFIX_TEXT = /^(0|[1-9]\d{0,2})$/;
const RANGE_TEXT = /^([^\s-]+)\s*-\s*([^\s-]+)$/;

type Address = { version: 4 | 6; value: bigint };

function toBigInt(bytes: readonly number[]): bigint {
  let value = 0n;
  for (const b of bytes) value = (value << 8n) | BigInt(b);
  return value;
}

function bitsOf(version: 4 | 6): number {
  return version === 4 ? 32 : 128;
}

function addressText(version: 4 | 6, value: bigint): string {
  const count = version === 4 ? 4 : 16;
  const bytes: number[] = [];
  for (let i = count - 1; i >= 0; i--) bytes.push(Number((value >> BigInt(i * 8)) & 0xffn));
  return version === 4 ? bytes.join('.') : (ipaddr.fromByteArray(bytes) as ipaddr.IPv6).toRFC5952String();
}

function blockText(version: 4 | 6, value: bigint, prefix: number): string {
  const bits = bitsOf(version);
  const hostBits = BigInt(bits - prefix);
  const network = (value >> hostBits) << hostBits;
  return `${addressText(version, network)}/${prefix}`;
}

function parseAddress(text: string): { ok: true; address: Address; mapped: boolean } | { ok: false; reason: string } {
  const parsed = parseIp(text);
  if (!parsed.ok) return { ok: false, reason: `"${text.slice(0, 60)}" ${parsed.reason}` };
  return {
    ok: true,
    address: { version: parsed.version, value: toBigInt(parsed.bytes) },
    mapped: parsed.version === 4 && text.includes(':'),
  };
}

function parseCidr(text: string): NetworkParse {
  const slash = text.indexOf('/');
  const addressPart = text.slice(0, slash);
  const prefixPart = text.slice(slash + 1);
  const address = parseAddress(addressPart);
  if (!address.ok) return address;
  if (!PREFIX_TEXT.test(prefixPart))
    return { ok: false, reason: `prefix length "${prefixPart.slice(0, 20)}" is not a number` };
  let prefix = Number(prefixPart);
  const { version, value } = address.address;
  if (address.mapped) {
    if (prefix > 128) return { ok: false, reason: `prefix length /${prefix} is out of range for IPv6 (0-128)` };
    if (prefix < 96) return { ok: false, reason: `IPv4-mapped prefix /${prefix} is shorter than /96` };
    prefix -= 96;
  }
  const bits = bitsOf(version);
  if (prefix > bits)
    return { ok: false, reason: `prefix length /${prefix} is out of range for IPv${version} (0-${bits})` };
  return { ok: true, cidrs: [blockText(version, value, prefix)] };
}

/** Minimal CIDR cover of [start, end]: at most 2 × bits blocks. */
function rangeBlocks(version: 4 | 6, start: bigint, end: bigint): string[] {
  const bits = bitsOf(version);
  const out: string[] = [];
  let at = start;
  while (at <= end) {
    // Largest block aligned at `at` (its lowest set bit), shrunk until it fits before `end`.
    let size = at === 0n ? 1n << BigInt(bits) : at & -at;
    while (size > end - at + 1n) size >>= 1n;
    let prefix = bits;
    for (let s = size; s > 1n; s >>= 1n) prefix--;
    out.push(blockText(version, at, prefix));
    at += size;
  }
  return out;
}

function parseRange(firstText: string, lastText: string): NetworkParse {
  const first = parseAddress(firstText);
  if (!first.ok) return first;
  const last = parseAddress(lastText);
  if (!last.ok) return last;
  if (first.address.version !== last.address.version) return { ok: false, reason: 'range mixes IPv4 and IPv6' };
  if (first.address.value > last.address.value) return { ok: false, reason: 'range ends before it starts' };
  return { ok: true, cidrs: rangeBlocks(first.address.version, first.address.value, last.address.value) };
}

/** Parse one feed value (already stripped of comments and surrounding space). */
export function parseNetworkText(text: string): NetworkParse {
  if (text.length === 0) return { ok: false, reason: 'empty value' };
  const range = RANGE_TEXT.exec(text);
  if (range) return parseRange(range[1]!, range[2]!);
  if (/\s/.test(text)) return { ok: false, reason: 'unexpected text after the address' };
  if (text.includes('/')) return parseCidr(text);
  const address = parseAddress(text);
  if (!address.ok) return address;
  const { version, value } = address.address;
  return { ok: true, cidrs: [blockText(version, value, bitsOf(version))] };
}
