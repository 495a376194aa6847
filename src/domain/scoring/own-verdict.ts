/**
 * The caller workspace's own verdict on one IP: what its own reports (naming the IP as subject or related subject)
 * and ratings say, live, in that workspace's score only (docs/risk-model.md#the-workspaces-own-verdict).
 *
 * RULE (the one place it is written)
 *   1. Each own item has the signed weight of evidence.ts (`baseWeight`): bad items raise risk, benign items
 *      (false_positive / legitimate reports, good ratings) lower it; neutral ratings and unknown codes weigh 0.
 *   2. Weights halve every 30 days, as every report and rating does (HALF_LIFE_MS).
 *   3. The latest word wins: when the workspace's newest benign item is newer than its newest bad item, its own
 *      verdict is **benign** and its bad items no longer count; otherwise (bad newer, or the same instant) it is
 *      **bad** and its benign items no longer count. Within the winning side every item counts.
 *   4. No per-source saturation: the own side's mass is the plain sum B (bad) or G (benign).
 *   5. A bad verdict that holds a fraud_confirmed report of high or critical severity made in the last
 *      OWN_FLOOR_HOLD_MS sets a floor: the IP's own score is at least the bottom of `high` (60).
 *
 * HELD AS SUMS. Each side is kept as Σ weight · 2^((t − OWN_EPOCH_MS) / HALF_LIFE_MS) plus its newest time, so a
 * write only adds to them (commutative: concurrent writers never lose each other's items) and a read decays the
 * sum to `now` with one multiplication. The write statements keep these columns in SQL from `ownItemWeight`'s
 * weights (memory/subject-memory.ts); `ownEvidenceOf` is the same fold in TypeScript, which a test holds equal.
 */
import type { EvidenceCounts, EvidenceItem } from './evidence.ts';
import { baseWeight } from './evidence.ts';
import { RISK_LEVELS } from './levels.ts';
import { HALF_LIFE_MS } from './weights.ts';

/** The reference instant of the held sums (2026-01-01T00:00:00Z): 2^(years·12) stays far inside a double. */
export const OWN_EPOCH_MS = Date.UTC(2026, 0, 1);
/** How long an own high/critical confirmed fraud holds the IP's own score at `high` or above. */
export const OWN_FLOOR_HOLD_MS = HALF_LIFE_MS;
/** The floor itself: the bottom of the `high` band. */
export const OWN_FLOOR_SCORE = RISK_LEVELS.find((b) => b.level === 'high')!.min;

/** The held form of a workspace's own evidence on one IP (columns of SubjectMemory). Times in ms, null when none. */
export type OwnEvidence = {
  /** Σ bad weight · 2^((t − OWN_EPOCH_MS) / HALF_LIFE_MS). */
  bad: number;
  /** Σ |benign weight| · 2^((t − OWN_EPOCH_MS) / HALF_LIFE_MS). */
  good: number;
  badAt: number | null;
  goodAt: number | null;
  /** Newest fraud_confirmed report of high or critical severity. */
  floorAt: number | null;
};

export const NO_OWN_EVIDENCE: OwnEvidence = Object.freeze({
  bad: 0,
  good: 0,
  badAt: null,
  goodAt: null,
  floorAt: null,
});

/** The workspace's own verdict at `now`, as scoring uses it; null when it has said nothing that weighs. */
export type OwnVerdict = {
  side: 'bad' | 'benign';
  /** Decayed, unsaturated mass of the winning side (B or G). */
  mass: number;
  /** Rule 5: the own score is at least OWN_FLOOR_SCORE. */
  floor: boolean;
  /** The newest item of the winning side. */
  at: Date;
  /** What the workspace wrote about the IP (its memory's counts), shown as the IP dimension's own evidence. */
  counts: EvidenceCounts;
};

/**
 * What the workspace itself reported about one IP, live from its memory (memory/ip-memory-table.ts): the part of
 * `reported` (scoring/reported.ts) that counts before the next publication.
 */
export type OwnReported = {
  /** Its reports naming the IP by outcome code, in OUTCOME_CODES order (shorter: the rest are 0). */
  outcomes: readonly number[];
  /** Whether it wrote any report or rating about the IP: it is then one of the IP's sources. */
  any: boolean;
  /** Its newest report or rating about the IP (ms); null when none. */
  lastAt: number | null;
};

/** Whether a report is the confirmed fraud that sets the floor (rule 5). */
export function setsFloor(outcomeCode: string, severity: string): boolean {
  return outcomeCode === 'fraud_confirmed' && (severity === 'high' || severity === 'critical');
}

/** Rule 1 for one own item: its signed weight (the write statements add it, epoch-scaled, to one side). */
export function ownItemWeight(item: EvidenceItem): number {
  return baseWeight(item);
}

/** The held sums of a list of own items (what the write statements accumulate, item by item). */
export function ownEvidenceOf(items: readonly EvidenceItem[]): OwnEvidence {
  const out = { ...NO_OWN_EVIDENCE };
  for (const item of items) {
    const w = ownItemWeight(item);
    const t = item.at.getTime();
    if (w === 0 || !Number.isFinite(t)) continue;
    const held = Math.abs(w) * 2 ** ((t - OWN_EPOCH_MS) / HALF_LIFE_MS);
    if (w > 0) {
      out.bad += held;
      out.badAt = Math.max(out.badAt ?? t, t);
      if (item.type === 'report' && setsFloor(item.outcomeCode, item.severity)) {
        out.floorAt = Math.max(out.floorAt ?? t, t);
      }
    } else {
      out.good += held;
      out.goodAt = Math.max(out.goodAt ?? t, t);
    }
  }
  return out;
}

/** Rules 2, 3 and 5 at `now`: the winning side, its decayed mass, whether the floor holds. */
export function ownVerdict(e: OwnEvidence, counts: EvidenceCounts, now: number): OwnVerdict | null {
  const benign = e.goodAt !== null && (e.badAt === null || e.goodAt > e.badAt);
  const at = benign ? e.goodAt : e.badAt;
  if (at === null) return null;
  const decay = 2 ** ((OWN_EPOCH_MS - now) / HALF_LIFE_MS);
  const mass = (benign ? e.good : e.bad) * decay;
  if (!(mass > 0)) return null;
  const floor = !benign && e.floorAt !== null && now - e.floorAt < OWN_FLOOR_HOLD_MS;
  return { side: benign ? 'benign' : 'bad', mass, floor, at: new Date(at), counts };
}
