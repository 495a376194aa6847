/**
 * What each risk level means in practice: per level, how many samples it held, the share of them that were bad
 * (precision), and the share of all bad samples it caught. A level is useful when its bad rate is above the one below.
 */
import { RISK_LEVELS, riskLevel, type RiskLevel } from '../scoring/levels.ts';
import type { Sample } from './auc.ts';

export type LevelRow = {
  level: RiskLevel;
  count: number;
  bad: number;
  /** bad / count: the level's precision, its observed bad rate (null when empty). */
  precision: number | null;
  /** bad / all bad samples (null when there is no bad sample). */
  shareOfBad: number | null;
};

export const LEVEL_ORDER: readonly RiskLevel[] = RISK_LEVELS.map((l) => l.level);

export function levelTable(samples: readonly Sample[]): LevelRow[] {
  const rows = new Map(LEVEL_ORDER.map((level) => [level, { count: 0, bad: 0 }]));
  let allBad = 0;
  for (const s of samples) {
    const row = rows.get(riskLevel(s.score))!;
    row.count++;
    if (s.bad) {
      row.bad++;
      allBad++;
    }
  }
  return LEVEL_ORDER.map((level) => {
    const { count, bad } = rows.get(level)!;
    return { level, count, bad, precision: count ? bad / count : null, shareOfBad: allBad ? bad / allBad : null };
  });
}

/** Precision of several levels taken together (e.g. high + critical); null when they hold no sample. */
export function precisionOf(rows: readonly LevelRow[], levels: readonly RiskLevel[]): number | null {
  let count = 0;
  let bad = 0;
  for (const r of rows) {
    if (!levels.includes(r.level)) continue;
    count += r.count;
    bad += r.bad;
  }
  return count ? bad / count : null;
}

/**
 * The levels whose bad rate is below that of a lower level (an inversion), among levels holding at least `minCount`
 * samples (a level seen a handful of times says nothing about its rate). Empty when the rate rises with every level.
 */
export function inversions(rows: readonly LevelRow[], minCount = 1): RiskLevel[] {
  const out: RiskLevel[] = [];
  let highest = -1;
  for (const r of rows) {
    if (r.count < Math.max(1, minCount) || r.precision === null) continue;
    if (r.precision < highest) out.push(r.level);
    else highest = r.precision;
  }
  return out;
}
