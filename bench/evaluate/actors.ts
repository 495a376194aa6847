/**
 * The population of a world: every IP with its ground truth. Abuse is concentrated as in practice: bad /24s of a few
 * hosting ASes (a bad tenant brings up many addresses within a day), compromised hosts scattered over residential
 * ISPs, and shared mobile addresses where one abuser hides among many benign users; benign IPs everywhere. The hostile
 * reporter's targets, one benign /24 and one benign AS, hold no abuser.
 */
import type { WorldParams } from './params.ts';
import { addressIn, blocksOf, ipText, type AsNetwork, type NetworkCatalogue } from './networks.ts';
import type { Random } from './random.ts';

export type ActorKind = 'hosting-abuser' | 'compromised' | 'shared-abuser' | 'benign' | 'benign-hosting';
export type Actor = {
  ip: string;
  kind: ActorKind;
  /** When the IP is abusive, in ms from the world's start (may begin before it); null for a benign IP. */
  abuse: { start: number; end: number } | null;
  /** The bad /24 it belongs to (hosting abusers), as its first address. */
  block: number | null;
  /** Stable draw in [0, 1): a feed lists the IP when this is below its coverage. */
  listing: number;
};
export type Population = {
  actors: Actor[];
  /** Bad hosting /24s with the stable draw that decides whether a feed lists the whole block. */
  badBlocks: Array<{ first: number; listing: number; members: Actor[] }>;
  hostileBlock: number;
  hostileAsn: AsNetwork;
};

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Cumulative sizes for drawing an AS in proportion to its address count (binary search, not a scan per draw). */
function sizeTable(networks: readonly AsNetwork[]) {
  const cumulative: number[] = [];
  let total = 0;
  for (const n of networks) cumulative.push((total += n.size));
  return (random: Random): AsNetwork => {
    const x = random.next() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return networks[lo]!;
  };
}

export function buildPopulation(p: WorldParams, net: NetworkCatalogue, random: Random, spanMs: number): Population {
  const used = new Set<number>();
  const actors: Actor[] = [];
  const add = (n: number, kind: ActorKind, abuse: Actor['abuse'], block: number | null = null): Actor | null => {
    if (used.has(n)) return null;
    used.add(n);
    const actor = { ip: ipText(n), kind, abuse, block, listing: random.next() };
    actors.push(actor);
    return actor;
  };
  const abuseFrom = (start: number) => ({ start, end: start + random.exponential(p.meanAbuseDays) * DAY });
  const onset = () =>
    random.chance(p.activeAtStart) ? -random.next() * p.meanAbuseDays * DAY : random.next() * spanMs;

  const residential = net.ofKind('residential', 1024);
  // The hostile reporter's targets: an AS of 2^16+ addresses and an announced /24 of another AS, both kept clean.
  const bigResidential = residential.filter((n) => n.size >= 65_536);
  const hostileAsn = random.pick(bigResidential);
  const slash24s = residential.filter((n) => n !== hostileAsn && n.ranges.some((r) => r.end - r.start === 255));
  const hostileHome = random.pick(slash24s);
  const hostileRanges = hostileHome.ranges.filter((r) => r.end - r.start === 255 && r.start % 256 === 0);
  const hostileBlock = random.pick(hostileRanges.length ? hostileRanges : hostileHome.ranges).start;
  const clean = new Set([hostileAsn.asn, hostileHome.asn]);

  // Hosting ASes with dense bad /24s, and benign servers beside them.
  const hosting = net.ofKind('hosting', 4096);
  const badBlocks: Population['badBlocks'] = [];
  const chosenHosting: AsNetwork[] = [];
  while (chosenHosting.length < Math.min(p.hostingAses, hosting.length)) {
    const n = random.pick(hosting);
    if (!chosenHosting.includes(n)) chosenHosting.push(n);
  }
  for (const network of chosenHosting) {
    const blocks = blocksOf(network);
    for (let b = 0; b < p.badSubnetsPerHostingAs && blocks.length; b++) {
      const first = blocks.splice(random.int(blocks.length), 1)[0]!;
      const tenantStart = onset();
      const members: Actor[] = [];
      const count = Math.round(p.badSubnetDensity * 254);
      for (let tries = 0; members.length < count && tries < count * 10; tries++) {
        const a = add(
          first + 1 + random.int(254),
          'hosting-abuser',
          abuseFrom(tenantStart + random.exponential(DAY)),
          first,
        );
        if (a) members.push(a);
      }
      for (let k = 0; k < 254; k++) used.add(first + 1 + k); // the rest of a bad block stays unused: a bad tenant's block
      badBlocks.push({ first, listing: random.next(), members });
    }
  }
  for (let i = 0; i < p.benignHostingIps && chosenHosting.length; i++) {
    add(addressIn(random.pick(chosenHosting), random), 'benign-hosting', null);
  }

  const drawResidential = sizeTable(residential.filter((n) => !clean.has(n.asn)));
  for (let i = 0; i < p.compromisedResidentialIps; i++) {
    add(addressIn(drawResidential(random), random), 'compromised', abuseFrom(onset()));
  }
  const mobile = net.ofKind('mobile', 1024);
  const drawMobile = sizeTable(mobile);
  for (let i = 0; i < p.sharedAbusiveIps; i++)
    add(addressIn(drawMobile(random), random), 'shared-abuser', abuseFrom(onset()));

  // Benign IPs: half residential, a fifth mobile, the rest any other network; some inside the hostile targets.
  const drawOther = sizeTable(net.ofKind('other', 256));
  const drawAnyResidential = sizeTable(residential);
  for (let i = 0; i < p.benignIps; i++) {
    const x = random.next();
    const network = x < 0.5 ? drawAnyResidential(random) : x < 0.7 ? drawMobile(random) : drawOther(random);
    add(addressIn(network, random), 'benign', null);
  }
  for (let i = 0; i < 20; i++) {
    add(hostileBlock + 1 + random.int(254), 'benign', null);
    add(addressIn(hostileAsn, random), 'benign', null);
  }
  return { actors, badBlocks, hostileBlock, hostileAsn };
}
