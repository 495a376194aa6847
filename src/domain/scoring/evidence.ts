/**
 * Evidence → one entity's summary. Pure and deterministic: `now` is a parameter, item order
 * does not matter (sums are taken over sorted values).
 *
 * FORMULA (constants in weights.ts)
 *   1. Signed weight of one item, before decay:
 *        report  outcome weight × severity multiplier   (good outcomes: outcome weight only)
 *        rating  bad (−1) → +0.5, neutral (0) → 0, good (1) → −0.5
 *        feed    FEED_MASS (1.5) × clamp(weight, 0, 1)
 *      Positive weight is "bad mass", negative weight is "good mass" (kept as its magnitude).
 *   2. Decay: reports and ratings × 2^(−age / half-life), age = max(0, now − at); the half-life is 3 days
 *      (IP_HALF_LIFE_MS) for the IP itself and 30 days (NETWORK_HALF_LIFE_MS) for every entity above it;
 *      feed listings do not decay (the caller passes only listings that are current).
 *   3. Scale: × clamp(item.scale ?? 1, 0, 1) (set by the roll-up for evidence inherited from an IP).
 *   4. Per-source saturation, sat(x) = C·(1 − e^(−x/C)) with C = 2. A source is one workspace
 *      (`reporter`) or one feed. Within a source:
 *        bad_s = sat( Σ direct bad + Σ_origins scale_o · sat(Σ bad inherited from origin o) )
 *      and the same for good_s. The inner sat (per origin IP) means one workspace spamming one
 *      IP cannot paint the IP's subnet; the outer sat means one workspace or one feed can never
 *      push an entity past 100·(1 − e^(−1)) ≈ 63 on its own. On an entity above the IP (subnet, AS, ...),
 *      a workspace's outer cap is NETWORK_SOURCE_CAP (0.6): one reporter alone stays at or below 26 (`low`).
 *   5. P = Σ_s bad_s, N = Σ_s good_s,
 *        score = round( 100 · (1 − e^(−P/2)) · e^(−N/2) )            (integer 0..100)
 *      Good evidence scales the score down multiplicatively, so it never goes below 0.
 *   MONOTONE: every step is non-decreasing in each item's bad mass and the final step is
 *   increasing in P and decreasing in N, so adding a bad item never lowers the score and adding
 *   a good item never raises it.
 *   Reference points (fresh evidence): one high-severity fraud_confirmed report → 41; the same
 *   from two workspaces → 65, four → 88; one feed at weight 1 → 41; one bad rating → 20.
 */
import { riskLevel, type RiskLevel } from './levels.ts';
import type { DimensionCode } from '../network/types.ts';
import {
  FEED_MASS,
  IP_HALF_LIFE_MS,
  NETWORK_HALF_LIFE_MS,
  K_BAD,
  K_GOOD,
  NETWORK_SOURCE_CAP,
  OUTCOME_CODES,
  OUTCOME_WEIGHTS,
  RATING_WEIGHTS,
  SEVERITY_MULTIPLIERS,
  SOURCE_CAP,
  type OutcomeCode,
  type Severity,
} from './weights.ts';

/** Optional roll-up fields: `scale` multiplies the item's weight, `origin` names the IP it came from. */
export type Inherited = { scale?: number; origin?: string };

export type EvidenceItem =
  | ({
      type: 'report';
      outcomeCode: string;
      severity: string;
      at: Date;
      reporter: string;
      /** Community-visible: the report is in the global layer too (reported.ts subtracts it there). */
      shared?: boolean;
    } & Inherited)
  | ({ type: 'rating'; rating: -1 | 0 | 1; at: Date; reporter: string } & Inherited)
  | ({
      type: 'feed';
      feed: string;
      weight: number;
      at: Date;
      /** The listed block as the feed wrote it ("203.0.113.0/24"); named in `reported.listings`. */
      block?: string;
    } & Inherited);

export type EvidenceCounts = {
  reports: number;
  badRatings: number;
  neutralRatings: number;
  goodRatings: number;
  feedListings: number;
};

/** Evidence counts in the published form: stored in a summary's `counts` column and answered by REST and report pages. */
export function publishedCounts(c: EvidenceCounts) {
  return {
    reports: c.reports,
    bad_ratings: c.badRatings,
    neutral_ratings: c.neutralRatings,
    good_ratings: c.goodRatings,
    feed_listings: c.feedListings,
  };
}

export type EntitySummary = {
  score: number;
  level: RiskLevel;
  counts: EvidenceCounts;
  /** Distinct workspaces among reports and ratings (feeds are not reporters). */
  reporters: number;
  firstSeen: Date | null;
  lastSeen: Date | null;
  /** What was reported (outcomes, distinct sources, feed listings); absent in publications written before it was kept. */
  reported?: ReportedSummary | null | undefined;
};

/** One feed listing of a block: the feed's name and the block as the feed lists it. */
export type FeedListing = { feed: string; block: string };

/** Direct feed listings kept per entity, the first by (feed, block): a feed listing thousands of small blocks in one subnet must not grow its row. */
export const MAX_LISTINGS = 10;

/**
 * What was reported about one entity, from its evidence items (docs/risk-model.md#what-was-reported).
 *   outcomes        reports by outcome code, in OUTCOME_CODES order (codes outside the vocabulary are not counted)
 *   sharedOutcomes  the same for the community-visible reports only (`shared`): the part of a workspace's own layer
 *                   that the global layer holds too; in the global layer it equals `outcomes`
 *   sources         distinct reporting sources: workspaces (reports and ratings) + feeds
 *   listings        the feed listings placed on the entity itself (not rolled up from its IPs), distinct, sorted,
 *                   at most MAX_LISTINGS
 */
export type ReportedSummary = {
  outcomes: readonly number[];
  sharedOutcomes: readonly number[];
  sources: number;
  listings: readonly FeedListing[];
  /** `outcomes` as answers give them, made once per distinct summary (most answers show a summary's as is). */
  byOutcome?: CountsByOutcome;
};

/** Reports by outcome code, only codes with a count, in OUTCOME_CODES order (what check_block answers too). */
export type CountsByOutcome = Readonly<Partial<Record<OutcomeCode, number>>>;

/** Counts in OUTCOME_CODES order → the record answers give. */
export function countsByOutcomeOf(counts: readonly number[]): CountsByOutcome {
  const out: Partial<Record<OutcomeCode, number>> = {};
  for (let i = 0; i < OUTCOME_CODES.length; i++) {
    const reports = counts[i] ?? 0;
    if (reports > 0) out[OUTCOME_CODES[i]!] = reports;
  }
  return out;
}

const OUTCOME_INDEX: ReadonlyMap<string, number> = new Map(OUTCOME_CODES.map((code, i) => [code, i]));

/** The index of an outcome code in OUTCOME_CODES order; undefined outside the vocabulary. */
export function outcomeIndex(code: string): number | undefined {
  return OUTCOME_INDEX.get(code);
}

function reportedOf(items: readonly EvidenceItem[]): ReportedSummary {
  const outcomes = new Array<number>(OUTCOME_CODES.length).fill(0);
  const sharedOutcomes = new Array<number>(OUTCOME_CODES.length).fill(0);
  const sources = new Set<string>();
  const listings = new Map<string, FeedListing>();
  for (const item of items) {
    sources.add(sourceKey(item));
    if (item.type === 'report') {
      const i = OUTCOME_INDEX.get(item.outcomeCode);
      if (i === undefined) continue;
      outcomes[i]!++;
      if (item.shared) sharedOutcomes[i]!++;
    } else if (item.type === 'feed' && item.origin === undefined && item.block !== undefined) {
      listings.set(`${item.feed}\u0000${item.block}`, { feed: item.feed, block: item.block });
    }
  }
  const sorted = [...listings.values()].sort((a, b) =>
    a.feed === b.feed ? (a.block < b.block ? -1 : 1) : a.feed < b.feed ? -1 : 1,
  );
  return { outcomes, sharedOutcomes, sources: sources.size, listings: sorted.slice(0, MAX_LISTINGS) };
}

/** Saturating curve: ≈ x for small x, never above `cap`, strictly increasing. */
export function saturate(x: number, cap: number = SOURCE_CAP): number {
  return cap * (1 - Math.exp(-x / cap));
}

/** Order-independent sum (so a summary never depends on the order rows came back in). */
function sumSorted(values: number[]): number {
  return values
    .slice()
    .sort((a, b) => a - b)
    .reduce((acc, v) => acc + v, 0);
}

/** Signed weight before decay and scale (step 1). Unknown outcome codes weigh 0. */
export function baseWeight(item: EvidenceItem): number {
  switch (item.type) {
    case 'report': {
      const outcome = OUTCOME_WEIGHTS[item.outcomeCode as OutcomeCode] ?? 0;
      if (outcome <= 0) return outcome;
      return outcome * (SEVERITY_MULTIPLIERS[item.severity as Severity] ?? SEVERITY_MULTIPLIERS.medium);
    }
    case 'rating':
      return RATING_WEIGHTS[item.rating] ?? 0;
    case 'feed':
      return FEED_MASS * clamp01(item.weight);
  }
}

/** The half-life of reports and ratings summarised for an entity of dimension `code` (undefined: an IP). */
export function halfLifeOf(code: DimensionCode | undefined): number {
  return code === undefined || code === 'ip' ? IP_HALF_LIFE_MS : NETWORK_HALF_LIFE_MS;
}

/** Signed weight after decay and scale (steps 1–3), for an entity whose evidence halves every `halfLife` ms. */
export function itemWeight(item: EvidenceItem, now: Date, halfLife: number = IP_HALF_LIFE_MS): number {
  const base = baseWeight(item);
  const scale = clamp01(item.scale ?? 1);
  if (item.type === 'feed') return base * scale;
  const age = now.getTime() - item.at.getTime();
  const decay = Number.isFinite(age) ? 2 ** (-Math.max(0, age) / halfLife) : 1;
  return base * decay * scale;
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

type Side = { direct: number[]; inherited: Map<string, { scale: number; values: number[] }> };
type Source = { bad: Side; good: Side };

function emptySide(): Side {
  return { direct: [], inherited: new Map() };
}

export function sourceKey(item: EvidenceItem): string {
  return item.type === 'feed' ? `feed\u0000${item.feed}` : `ws\u0000${item.reporter}`;
}

/** Steps 3–4 for one side of one source; `cap` is that source's outer saturation. */
function sideMass(side: Side, cap: number): number {
  const parts = side.direct.slice();
  for (const group of side.inherited.values()) parts.push(group.scale * saturate(sumSorted(group.values)));
  return saturate(sumSorted(parts), cap);
}

/** The outer cap of one source on an entity of dimension `code` (undefined: an IP, or not said). */
export function capOf(key: string, code: DimensionCode | undefined): number {
  return code !== undefined && code !== 'ip' && key.startsWith('ws\u0000') ? NETWORK_SOURCE_CAP : SOURCE_CAP;
}

/**
 * Bad mass P and good mass N of a set of items (steps 1–5 before the final curve). `code`: the dimension of the
 * entity the items are summarised for; above the IP, one workspace's mass is capped at NETWORK_SOURCE_CAP.
 */
export function evidenceMass(
  items: readonly EvidenceItem[],
  now: Date,
  code?: DimensionCode,
): { bad: number; good: number } {
  const sources = new Map<string, Source>();
  const halfLife = halfLifeOf(code);
  for (const item of items) {
    const key = sourceKey(item);
    let source = sources.get(key);
    if (!source) sources.set(key, (source = { bad: emptySide(), good: emptySide() }));
    const base = baseWeight(item);
    if (base === 0) continue;
    const side = base > 0 ? source.bad : source.good;
    if (item.origin === undefined) {
      side.direct.push(Math.abs(itemWeight(item, now, halfLife)));
    } else {
      // Weight without scale inside the group; the group's scale applies after the inner sat.
      const scale = clamp01(item.scale ?? 1);
      const unscaled = Math.abs(itemWeight({ ...item, scale: 1 }, now, halfLife));
      const groupKey = `${item.origin}\u0000${scale}`;
      let group = side.inherited.get(groupKey);
      if (!group) side.inherited.set(groupKey, (group = { scale, values: [] }));
      group.values.push(unscaled);
    }
  }
  const bad: number[] = [];
  const good: number[] = [];
  for (const [key, source] of sources) {
    const cap = capOf(key, code);
    bad.push(sideMass(source.bad, cap));
    good.push(sideMass(source.good, cap));
  }
  return { bad: sumSorted(bad), good: sumSorted(good) };
}

/** Step 5: masses → integer score 0..100. */
export function scoreFromMass(bad: number, good: number): number {
  const raw = 100 * (1 - Math.exp(-bad / K_BAD)) * Math.exp(-good / K_GOOD);
  return Math.min(100, Math.max(0, Math.round(raw)));
}

export function summarizeEvidence(items: readonly EvidenceItem[], now: Date, code?: DimensionCode): EntitySummary {
  const counts: EvidenceCounts = { reports: 0, badRatings: 0, neutralRatings: 0, goodRatings: 0, feedListings: 0 };
  const reporters = new Set<string>();
  let first: number | null = null;
  let last: number | null = null;
  for (const item of items) {
    if (item.type === 'report') counts.reports++;
    else if (item.type === 'feed') counts.feedListings++;
    else if (item.rating === -1) counts.badRatings++;
    else if (item.rating === 1) counts.goodRatings++;
    else counts.neutralRatings++;
    if (item.type !== 'feed') reporters.add(item.reporter);
    const t = item.at.getTime();
    if (Number.isFinite(t)) {
      if (first === null || t < first) first = t;
      if (last === null || t > last) last = t;
    }
  }
  const mass = evidenceMass(items, now, code);
  const score = scoreFromMass(mass.bad, mass.good);
  return {
    score,
    level: riskLevel(score),
    counts,
    reporters: reporters.size,
    firstSeen: first === null ? null : new Date(first),
    lastSeen: last === null ? null : new Date(last),
    reported: reportedOf(items),
  };
}
