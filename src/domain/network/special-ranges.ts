/**
 * IANA special-purpose address blocks (IPv4 and IPv6 Special-Purpose Address Registries, plus the
 * IPv6 space IANA keeps reserved). An IP inside one of these has no meaningful network owner or
 * place, so the resolver matches only its `ip` dimension and explains why for the others.
 * Blocks IANA marks globally reachable (AS112, AMT, PCP anycast...) are deliberately absent:
 * they are ordinary routed space. Tunnel/translation prefixes (6to4, Teredo, NAT64) are listed
 * because the address embeds an IPv4 and the network that matters is that IPv4's.
 */
import type { SpecialRange } from './types.ts';
import { networkOf } from './cidr.ts';
import { parseV4, parseV6Into, type Words } from './address-words.ts';

const NOT_ROUTED = 'not routed on the public internet';

const V4: SpecialRange[] = [
  {
    cidr: '0.0.0.0/8',
    name: 'this-network',
    reason: `"this network" (RFC 791) is only a source address during boot, ${NOT_ROUTED}`,
  },
  { cidr: '10.0.0.0/8', name: 'private-use', reason: `RFC 1918 private address space is ${NOT_ROUTED}` },
  {
    cidr: '100.64.0.0/10',
    name: 'shared-address-space',
    reason: `RFC 6598 carrier-grade NAT space is shared by many subscribers and ${NOT_ROUTED}`,
  },
  { cidr: '127.0.0.0/8', name: 'loopback', reason: 'loopback addresses never leave the host' },
  { cidr: '169.254.0.0/16', name: 'link-local', reason: `RFC 3927 link-local addresses are ${NOT_ROUTED}` },
  { cidr: '172.16.0.0/12', name: 'private-use', reason: `RFC 1918 private address space is ${NOT_ROUTED}` },
  {
    cidr: '192.0.0.0/24',
    name: 'ietf-protocol-assignments',
    reason: `RFC 6890 protocol-assignment space is ${NOT_ROUTED}`,
  },
  { cidr: '192.0.2.0/24', name: 'documentation', reason: 'TEST-NET-1 (RFC 5737) is reserved for documentation' },
  {
    cidr: '192.88.99.0/24',
    name: '6to4-relay-anycast',
    reason: 'the 6to4 relay anycast prefix was deprecated by RFC 7526',
  },
  { cidr: '192.168.0.0/16', name: 'private-use', reason: `RFC 1918 private address space is ${NOT_ROUTED}` },
  { cidr: '198.18.0.0/15', name: 'benchmarking', reason: `RFC 2544 benchmarking space is ${NOT_ROUTED}` },
  { cidr: '198.51.100.0/24', name: 'documentation', reason: 'TEST-NET-2 (RFC 5737) is reserved for documentation' },
  { cidr: '203.0.113.0/24', name: 'documentation', reason: 'TEST-NET-3 (RFC 5737) is reserved for documentation' },
  { cidr: '224.0.0.0/4', name: 'multicast', reason: 'multicast addresses name groups of receivers, not a host' },
  { cidr: '240.0.0.0/4', name: 'reserved', reason: 'reserved for future use (RFC 1112) and not routed' },
  {
    cidr: '255.255.255.255/32',
    name: 'limited-broadcast',
    reason: 'the limited broadcast address never leaves the local link',
  },
];

const IETF_RESERVED = 'reserved by the IETF (outside IANA global unicast 2000::/3) and not routed';
const V6: SpecialRange[] = [
  { cidr: '::/128', name: 'unspecified', reason: 'the unspecified address means "no address"' },
  { cidr: '::1/128', name: 'loopback', reason: 'loopback addresses never leave the host' },
  {
    cidr: '64:ff9b::/96',
    name: 'nat64',
    reason: "NAT64 well-known prefix (RFC 6052): embeds an IPv4 address, the network behind it is that IPv4's",
  },
  { cidr: '64:ff9b:1::/48', name: 'nat64-local', reason: `local-use NAT64 prefix (RFC 8215) is ${NOT_ROUTED}` },
  { cidr: '100::/64', name: 'discard-only', reason: 'discard-only prefix (RFC 6666) is dropped by design' },
  {
    cidr: '2001::/32',
    name: 'teredo',
    reason: "Teredo tunnel address (RFC 4380): embeds an IPv4 address, the network behind it is that IPv4's",
  },
  { cidr: '2001:2::/48', name: 'benchmarking', reason: `RFC 5180 benchmarking space is ${NOT_ROUTED}` },
  { cidr: '2001:10::/28', name: 'orchid', reason: 'deprecated ORCHID identifiers (RFC 4843) are not routable' },
  { cidr: '2001:db8::/32', name: 'documentation', reason: 'RFC 3849 prefix reserved for documentation' },
  {
    cidr: '2002::/16',
    name: '6to4',
    reason: "6to4 tunnel address (RFC 3056): embeds an IPv4 address, the network behind it is that IPv4's",
  },
  { cidr: '3fff::/20', name: 'documentation', reason: 'RFC 9637 prefix reserved for documentation' },
  { cidr: '5f00::/16', name: 'srv6-sid', reason: `SRv6 segment identifiers (RFC 9602) are ${NOT_ROUTED}` },
  { cidr: 'fc00::/7', name: 'unique-local', reason: `RFC 4193 unique local addresses are ${NOT_ROUTED}` },
  { cidr: 'fe80::/10', name: 'link-local', reason: `link-local addresses are ${NOT_ROUTED}` },
  { cidr: 'fec0::/10', name: 'site-local', reason: `deprecated site-local addresses (RFC 3879) are ${NOT_ROUTED}` },
  { cidr: 'ff00::/8', name: 'multicast', reason: 'multicast addresses name groups of receivers, not a host' },
  // The rest of the space outside 2000::/3 (and the blocks above) is unallocated.
  ...['::/3', '4000::/2', '8000::/2', 'c000::/3', 'e000::/4', 'f000::/5', 'f800::/6', 'fe00::/9'].map((cidr) => ({
    cidr,
    name: 'reserved',
    reason: IETF_RESERVED,
  })),
];

type Compiled = { range: SpecialRange; prefix: number; network: Words; mask: Words };

function compile(list: SpecialRange[], version: 4 | 6): Compiled[] {
  return list
    .map((range) => {
      const [address, length] = range.cidr.split('/') as [string, string];
      const words: number[] = version === 4 ? [parseV4(address)] : [0, 0, 0, 0];
      if (version === 6 && !parseV6Into(address, words, 0)) throw new Error(`bad special range ${range.cidr}`);
      const prefix = Number(length);
      const mask = networkOf(
        words.map(() => 0xffffffff),
        prefix,
      );
      return { range: Object.freeze(range), prefix, network: networkOf(words, prefix), mask };
    })
    .sort((a, b) => b.prefix - a.prefix); // most specific first, so the first match wins
}

const COMPILED_V4 = compile(V4, 4);
const COMPILED_V6 = compile(V6, 6);

/** The most specific special-purpose block holding the address, or null for ordinary space. */
export function findSpecialRange(words: Words): SpecialRange | null {
  for (const entry of words.length === 1 ? COMPILED_V4 : COMPILED_V6) {
    let inside = true;
    for (let w = 0; w < words.length && inside; w++) inside = (words[w]! & entry.mask[w]!) >>> 0 === entry.network[w];
    if (inside) return entry.range;
  }
  return null;
}

export const SPECIAL_RANGES: { v4: readonly SpecialRange[]; v6: readonly SpecialRange[] } = { v4: V4, v6: V6 };
