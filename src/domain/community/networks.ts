/**
 * The community signal of the score answer: the IP's own snapshot plus its networks' (subnet and AS), so a
 * client sees lookups spreading over a range before any single IP of it spikes. The networks' snapshots are the
 * ones every score call already records (lookupEntities) and the report pages read; the same rules apply
 * (signal.ts). The three reads are issued in one tick, so with Redis they share the round trip of the metering
 * step (node-redis pipelines commands of one tick) and, like the IP's, are served from the per-window cache
 * when another call read them this window.
 */
import type { Hierarchy } from '../network/types.ts';
import type { NETWORK_CODES, CommunitySignal, CommunitySignals } from './signal.ts';

/** A network's snapshot without its window list (the IP's answer keeps that): the entity key it is about. */
export type NetworkSignal = Omit<CommunitySignal, 'recentQueryWindows'> & { key: string };
/** null for a dimension the IP has no entity in (an unrouted address has no AS). */
export type NetworkSignals = { subnet: NetworkSignal | null; asn: NetworkSignal | null };
export type ScoreCommunitySignal = CommunitySignal & { networks: NetworkSignals };

/**
 * Reads the IP's and its networks' snapshots; every read is issued before this returns its promise (one tick).
 * Never fails: an unreadable snapshot answers ok: false (readOrUnavailable), each on its own.
 */
export function readScoreSignal(
  community: CommunitySignals,
  h: Hierarchy,
  nowMs: number,
): Promise<ScoreCommunitySignal> {
  const ip = community.readOrUnavailable(`ip:${h.ip}`, nowMs);
  const subnet = readNetwork(community, h, 'subnet', nowMs);
  const asn = readNetwork(community, h, 'asn', nowMs);
  return Promise.all([ip, subnet, asn]).then(([own, s, a]) => ({ ...own, networks: { subnet: s, asn: a } }));
}

function readNetwork(
  community: CommunitySignals,
  h: Hierarchy,
  code: (typeof NETWORK_CODES)[number],
  nowMs: number,
): Promise<NetworkSignal | null> | null {
  const key = h.dimensions.find((d) => d.code === code)?.entity?.key;
  if (!key) return null;
  return community.readOrUnavailable(`${code}:${key}`, nowMs).then((s) => ({
    key,
    ok: s.ok,
    label: s.label,
    hasSpike: s.hasSpike,
    lookups10m: s.lookups10m,
    requesters60m: s.requesters60m,
    spikeWindows7d: s.spikeWindows7d,
  }));
}
