import { BlockList, isIP } from 'node:net';

/**
 * The SSRF guard's address rule (docs/webhooks.md, "Where deliveries may go"): a webhook is delivered only to a public
 * unicast address. Refused: private (RFC 1918), loopback, link-local, unique-local, carrier-grade NAT, multicast,
 * unspecified, broadcast, reserved and documentation space, and IPv6 forms that embed such an IPv4 address
 * (IPv4-mapped, IPv4-compatible, NAT64, 6to4). Teredo is refused whole: its embedded address is the relay's, not the
 * target's. Operator-allowed hosts skip this check (send.ts).
 */
const V4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  V4.addSubnet(net, prefix, 'ipv4');

/** Inside 2000::/3 (global unicast), still not a delivery target. */
const V6_REFUSED = new BlockList();
V6_REFUSED.addSubnet('2001::', 32, 'ipv6'); // Teredo
V6_REFUSED.addSubnet('2001:db8::', 32, 'ipv6'); // documentation
V6_REFUSED.addSubnet('2001:2::', 48, 'ipv6'); // benchmarking
V6_REFUSED.addSubnet('2001:10::', 28, 'ipv6'); // ORCHID
V6_REFUSED.addSubnet('3fff::', 20, 'ipv6'); // documentation

/** The eight 16-bit groups of an IPv6 address (any textual form node accepts, including a dotted IPv4 tail). */
function groups(ip: string): number[] {
  let text = ip.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, null];
  const h = head ? head.split(':') : [];
  const t = tail === null ? [] : tail ? tail.split(':') : [];
  const fill = tail === null ? [] : new Array(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => parseInt(g, 16));
}

const v4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** Why an address may not be a webhook target, or null when it may. */
export function refusedAddress(ip: string): string | null {
  const version = isIP(ip);
  if (version === 4)
    return V4.check(ip, 'ipv4')
      ? `${ip} is a private, loopback, link-local, shared (CGNAT), multicast or reserved IPv4 address`
      : null;
  if (version !== 6) return `${ip} is not an IP address`;
  const g = groups(ip);
  const embedded = (v4: string, form: string) =>
    refusedAddress(v4) ? `${ip} is an ${form} form of ${v4}, which is refused` : null;
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible; :: and ::1 are caught below as unspecified and loopback)
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return embedded(v4Of(g[6]!, g[7]!), 'IPv4-mapped');
  if (g.slice(0, 6).every((x) => x === 0) && g[6]! !== 0) return embedded(v4Of(g[6]!, g[7]!), 'IPv4-compatible');
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0))
    return embedded(v4Of(g[6]!, g[7]!), 'NAT64');
  if (g[0] === 0x2002) return embedded(v4Of(g[1]!, g[2]!), '6to4');
  // Outside 2000::/3: unspecified, loopback, unique-local, link-local, multicast and reserved space.
  if ((g[0]! & 0xe000) !== 0x2000)
    return `${ip} is not a global unicast IPv6 address (loopback, unspecified, unique-local, link-local, multicast or reserved)`;
  if (V6_REFUSED.check(ip, 'ipv6')) return `${ip} is in a reserved IPv6 block (Teredo, documentation, benchmarking)`;
  return null;
}
