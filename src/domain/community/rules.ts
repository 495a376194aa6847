/**
 * The spike rule and the state labels of the community signal (pure functions, no I/O).
 * The rule text is repeated in the comment block of signal.ts, which the README copies.
 */

/** A window needs at least this many lookups to be a spike, whatever the entity's baseline. */
export const MIN_SPIKE_HITS = 20;
/** …and at least this many times the entity's own mean hits per window over the rest of the week. */
export const SPIKE_FACTOR = 4;
/**
 * Distinct requesters a window needs to be a spike, by default (SPIKE_MIN_REQUESTERS): the signal is about several
 * requester IPs converging on an entity, so one client retrying, however often, never makes a spike.
 */
export const DEFAULT_SPIKE_MIN_REQUESTERS = 3;
/** Distinct requesters in the last hour from which a lookup pattern counts as converging. */
export const CONVERGING_REQUESTERS = 3;

/** State labels, highest precedence first: the first whose condition holds is the label. */
export const COMMUNITY_LABELS = Object.freeze([
  {
    label: 'spiking',
    meaning: 'at least one of the last six complete 10-minute windows is a spike (has_spike is true)',
  },
  {
    label: 'converging',
    meaning: `no spike, but ${CONVERGING_REQUESTERS} or more distinct requesters looked the entity up in the last six complete windows`,
  },
  {
    label: 'active',
    meaning: `looked up in the last six complete windows, by fewer than ${CONVERGING_REQUESTERS} distinct requesters, no spike`,
  },
  { label: 'quiet', meaning: 'no lookups in the last six complete windows' },
] as const);

export type CommunityLabel = (typeof COMMUNITY_LABELS)[number]['label'];

/**
 * Spike flag of each of `hits`, the hits of one entity's windows over a span of `windowCount` windows (7 days).
 * Windows left out of `hits` had no lookups: they count in the baseline but can never be spikes, so callers may
 * pass only the windows that had lookups. Window i is a spike when
 *   hits[i] >= MIN_SPIKE_HITS  and  hits[i] >= SPIKE_FACTOR × baseline_i,
 * baseline_i = mean hits of the OTHER windows of the span (the window itself would inflate its own baseline).
 * Compared in integers (hits[i] × (n−1) >= FACTOR × (total − hits[i])) so no rounding decides a border case.
 */
export function spikeFlags(hits: readonly number[], windowCount = hits.length): boolean[] {
  const n = windowCount;
  const total = hits.reduce((sum, h) => sum + h, 0);
  return hits.map((h) => h >= MIN_SPIKE_HITS && (n <= 1 || h * (n - 1) >= SPIKE_FACTOR * (total - h)));
}

/**
 * The requester condition of a spike: a window whose hits pass spikeFlags is a spike only when at least
 * `minRequesters` distinct requesters made them. `requesters` is undefined for a window whose distinct requesters
 * are not read (older than the recent six): its hit test alone stands, for spike_windows_7d only.
 */
export function spikeByRequesters(hitSpike: boolean, requesters: number | undefined, minRequesters: number): boolean {
  return hitSpike && (requesters === undefined || requesters >= minRequesters);
}

/** The label of a snapshot, by the precedence of COMMUNITY_LABELS. */
export function classify(s: { hasSpike: boolean; recentHits: number; requesters60m: number }): CommunityLabel {
  if (s.hasSpike) return 'spiking';
  if (s.requesters60m >= CONVERGING_REQUESTERS) return 'converging';
  if (s.recentHits > 0) return 'active';
  return 'quiet';
}
