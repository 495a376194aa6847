/**
 * Where a piece of evidence lands among the dimension entities.
 *
 *   subject kind   key                         lands on
 *   ipaddress      canonical IP                that IP (rolled up to its networks and places)
 *   cidr           "net/len"                   a /32 or /128: that IP; otherwise every announced
 *                                              subnet entity it overlaps (direct, scaled)
 *   asn            decimal number ("AS" ok)    asn entity "AS<n>"
 *   organization   organisation name           org entity keyed by orgKeyOf(name), the key the
 *                                              network index gives AS organisations
 *   anything else (domain, email, url, …)      nothing: those kinds have no IP dimension
 *
 * CIDR → subnets: resolve the CIDR's first address, take that address's subnet entity, then
 * continue at the address after the subnet's end until past the CIDR's end. Each subnet gets
 * scale = (addresses of the subnet inside the CIDR) / (subnet size): 1 when the CIDR covers it
 * entirely, 1/16 when a /28 lists part of a /24. Special-purpose space (private, documentation…)
 * has no subnet entity and is stepped over. At most MAX_CIDR_STEPS subnets per CIDR: a /8 can
 * span tens of thousands of announced prefixes, and a feed listing "0.0.0.0/0" must not stall
 * the publisher; the subnets past the cap get nothing and the entry is counted as truncated.
 */
import type { NetworkIndex } from '../network/types.ts';
import { parseIp } from '../network/ip.ts';
import { orgKeyOf } from '../network/isp-brand.ts';
import { wordsText } from '../network/address-words.ts';

export const MAX_CIDR_STEPS = 4096;

export type SubnetShare = { key: string; name: string; scale: number };
export type Target =
  | { kind: 'ip'; ip: string }
  | { kind: 'subnets'; subnets: SubnetShare[]; truncated: boolean }
  | { kind: 'entity'; code: 'asn' | 'org'; key: string }
  | { kind: 'none' };

type Block = { version: 4 | 6; start: bigint; end: bigint };

function toBigInt(bytes: readonly number[]): bigint {
  let value = 0n;
  for (const b of bytes) value = (value << 8n) | BigInt(b);
  return value;
}

/** "net/len" → its first and last address; null when not a CIDR. */
export function parseBlock(cidr: string): Block | null {
  const slash = cidr.indexOf('/');
  if (slash === -1) return null;
  const parsed = parseIp(cidr.slice(0, slash));
  const prefixText = cidr.slice(slash + 1);
  if (!parsed.ok || !/^\d{1,3}$/.test(prefixText)) return null;
  const bits = parsed.version === 4 ? 32 : 128;
  const prefix = Number(prefixText);
  if (prefix > bits) return null;
  const host = BigInt(bits - prefix);
  const start = (toBigInt(parsed.bytes) >> host) << host;
  return { version: parsed.version, start, end: start + (1n << host) - 1n };
}

function addressText(version: 4 | 6, value: bigint): string {
  const words: number[] = [];
  for (let w = version === 4 ? 0 : 3; w >= 0; w--) words.push(Number((value >> BigInt(w * 32)) & 0xffffffffn));
  return wordsText(words);
}

/** The announced subnets a CIDR overlaps, with the share of each it covers (see the header). */
export function subnetsOfCidr(
  network: NetworkIndex,
  cidr: string,
): { subnets: SubnetShare[]; truncated: boolean } | null {
  const block = parseBlock(cidr);
  if (block === null) return null;
  const subnets: SubnetShare[] = [];
  let at = block.start;
  for (let steps = 0; at <= block.end; steps++) {
    if (steps === MAX_CIDR_STEPS) return { subnets, truncated: true };
    const h = network.resolve(addressText(block.version, at));
    const span = parseBlock(h.special?.cidr ?? h.dimensions.find((d) => d.code === 'subnet')?.entity?.key ?? '');
    // No subnet (special space) or an unreadable key: skip the special block, or one address at worst.
    if (span === null || h.special !== null) {
      at = span === null ? at + 1n : span.end + 1n;
      continue;
    }
    const subnet = h.dimensions.find((d) => d.code === 'subnet')!.entity!;
    const from = span.start > block.start ? span.start : block.start;
    const to = span.end < block.end ? span.end : block.end;
    const scale = Number(to - from + 1n) / Number(span.end - span.start + 1n);
    subnets.push({ key: subnet.key, name: subnet.name, scale: Math.min(1, scale) });
    at = span.end + 1n;
  }
  return { subnets, truncated: false };
}

/** A single-address CIDR ("1.2.3.4/32", "2001:db8::1/128") → that address; otherwise null. */
function singleAddress(cidr: string): string | null {
  const block = parseBlock(cidr);
  if (block === null || block.start !== block.end) return null;
  return addressText(block.version, block.start);
}

export function cidrTarget(network: NetworkIndex, cidr: string): Target {
  const ip = singleAddress(cidr);
  if (ip !== null) return { kind: 'ip', ip };
  const found = subnetsOfCidr(network, cidr);
  return found === null ? { kind: 'none' } : { kind: 'subnets', ...found };
}

/** Where evidence about a subject (kind, key) lands; `none` for kinds without an IP dimension. */
export function subjectTarget(network: NetworkIndex, kind: string, key: string): Target {
  switch (kind) {
    case 'ipaddress': {
      const parsed = parseIp(key);
      return parsed.ok ? { kind: 'ip', ip: parsed.canonical } : { kind: 'none' };
    }
    case 'cidr':
      return cidrTarget(network, key);
    case 'asn': {
      const digits = key.trim().replace(/^as/i, '');
      return /^\d{1,10}$/.test(digits) ? { kind: 'entity', code: 'asn', key: `AS${Number(digits)}` } : { kind: 'none' };
    }
    case 'organization': {
      const orgKey = orgKeyOf(key);
      return orgKey.length > 0 ? { kind: 'entity', code: 'org', key: orgKey } : { kind: 'none' };
    }
    default:
      return { kind: 'none' };
  }
}

/** Subject kinds that can land anywhere: the SQL that gathers evidence filters on these. */
export const MAPPED_KINDS: readonly string[] = ['ipaddress', 'cidr', 'asn', 'organization'];
