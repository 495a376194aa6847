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
 *   2. Decay: reports and ratings × 2^(−age / 30 days), age = max(0, now − at);
 *      feed listings do not decay (the caller passes only listings that are current).
 *   3. Scale: × clamp(item.scale ?? 1, 0, 1) (set by the roll-up for evidence inherited from an IP).
 *   4. Per-source saturation, sat(x) = C·(1 − e^(−x/C)) with C = 2. A source is one workspace
 *      (`reporter`) or one feed. Within a source:
 *        bad_s = sat( Σ direct bad + Σ_origins scale_o · sat(Σ bad inherited from origin o) )
 *      and the same for good_s. The inner sat (per origin IP) means one workspace spamming one
 *      IP cannot paint the IP's subnet; the outer sat means one workspace or one feed can never
 *      push an entity past 100·(1 − e^(−1)) ≈ 63 on its own.
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
import {
  FEED_MASS, HALF_LIFE_MS, K_BAD, K_GOOD, OUTCOME_WEIGHTS, RATING_WEIGHTS, SEVERITY_MULTIPLIERS, SOURCE_CAP,
  type OutcomeCode, type Severity,
} from './weights.ts';

/** Optional roll-up fields: `scale` multiplies the item's weight, `origin` names the IP it came from. */
export type Inherited = { scale?: number; origin?: string };

export type EvidenceItem =
  | ({ type: 'report'; outcomeCode: string; severity: string; at: Date; reporter: string } & Inherited)
  | ({ type: 'rating'; rating: -1 | 0 | 1; at: Date; reporter: string } & Inherited)
  | ({ type: 'feed'; feed: string; weight: number; at: Date } & Inherited);

export type EvidenceCounts = {
  reports: number; badRatings: number; neutralRatings: number; goodRatings: number; feedListings: number;
};

/** Evidence counts in the published form: stored in a summary's `counts` column and answered by REST and report pages. */
export function publishedCounts(c: EvidenceCounts) {
  return { reports: c.reports, bad_ratings: c.badRatings, neutral_ratings: c.neutralRatings, good_ratings: c.goodRatings, feed_listings: c.feedListings };
}

export type EntitySummary = {
  score: number;
  level: RiskLevel;
  counts: EvidenceCounts;
  /** Distinct workspaces among reports and ratings (feeds are not reporters). */
  reporters: number;
  firstSeen: Date | null;
  lastSeen: Date | null;
};

/** Saturating curve: ≈ x for small x, never above `cap`, strictly increasing. */
export function saturate(x: number, cap: number = SOURCE_CAP): number {
  return cap * (1 - Math.exp(-x / cap));
}

/** Order-independent sum (so a summary never depends on the order rows came back in). */
function sumSorted(values: number[]): number {
  return values.slice().sort((a, b) => a - b).reduce((acc, v) => acc + v, 0);
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

/** Signed weight after decay and scale (steps 1–3). */
export function itemWeight(item: EvidenceItem, now: Date): number {
  const base = baseWeight(item);
  const scale = clamp01(item.scale ?? 1);
  if (item.type === 'feed') return base * scale;
  const age = now.getTime() - item.at.getTime();
  const decay = Number.isFinite(age) ? 2 ** (-Math.max(0, age) / HALF_LIFE_MS) : 1;
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

function sourceKey(item: EvidenceItem): string {
  return item.type === 'feed' ? `feed\u0000${item.feed}` : `ws\u0000${item.reporter}`;
}

/** Steps 3–4 for one side of one source. */
function sideMass(side: Side): number {
  const parts = side.direct.slice();
  for (const group of side.inherited.values()) parts.push(group.scale * saturate(sumSorted(group.values)));
  return saturate(sumSorted(parts));
}

/** Bad mass P and good mass N of a set of items (steps 1–5 before the final curve). */
export function evidenceMass(items: readonly EvidenceItem[], now: Date): { bad: number; good: number } {
  const sources = new Map<string, Source>();
  for (const item of items) {
    const key = sourceKey(item);
    let source = sources.get(key);
    if (!source) sources.set(key, (source = { bad: emptySide(), good: emptySide() }));
    const base = baseWeight(item);
    if (base === 0) continue;
    const side = base > 0 ? source.bad : source.good;
    if (item.origin === undefined) {
      side.direct.push(Math.abs(itemWeight(item, now)));
    } else {
      // Weight without scale inside the group; the group's scale applies after the inner sat.
      const scale = clamp01(item.scale ?? 1);
      const unscaled = Math.abs(itemWeight({ ...item, scale: 1 }, now));
      const groupKey = `${item.origin}\u0000${scale}`;
      let group = side.inherited.get(groupKey);
      if (!group) side.inherited.set(groupKey, (group = { scale, values: [] }));
      group.values.push(unscaled);
    }
  }
  const bad: number[] = [];
  const good: number[] = [];
  for (const source of sources.values()) {
    bad.push(sideMass(source.bad));
    good.push(sideMass(source.good));
  }
  return { bad: sumSorted(bad), good: sumSorted(good) };
}

/** Step 5: masses → integer score 0..100. */
export function scoreFromMass(bad: number, good: number): number {
  const raw = 100 * (1 - Math.exp(-bad / K_BAD)) * Math.exp(-good / K_GOOD);
  return Math.min(100, Math.max(0, Math.round(raw)));
}

export function summarizeEvidence(items: readonly EvidenceItem[], now: Date): EntitySummary {
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
  const mass = evidenceMass(items, now);
  const score = scoreFromMass(mass.bad, mass.good);
  return {
    score,
    level: riskLevel(score),
    counts,
    reporters: reporters.size,
    firstSeen: first === null ? null : new Date(first),
    lastSeen: last === null ? null : new Date(last),
  };
}
