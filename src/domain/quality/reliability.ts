/**
 * Calibration of a 0..100 score: the observed bad rate per score decile (0-9, 10-19, ..., 90-100), and the expected
 * calibration error, the gap between score/100 and the bad rate, averaged over samples. The score is not promised to
 * be a probability; the table shows how far it is from one, and whether a higher score means more abuse.
 */
import type { Sample } from './auc.ts';

export type ReliabilityBin = {
  /** Inclusive score bounds of the decile. */
  min: number;
  max: number;
  count: number;
  bad: number;
  /** Mean score of the samples in the bin (null when empty). */
  meanScore: number | null;
  /** bad / count (null when empty). */
  badRate: number | null;
};

/** The decile a score falls in: 0..9, where 90-100 is the last (100 has no decile of its own). */
export function decileOf(score: number): number {
  const s = Number.isFinite(score) ? Math.min(100, Math.max(0, Math.round(score))) : 0;
  return Math.min(9, Math.floor(s / 10));
}

export function reliabilityTable(samples: readonly Sample[]): ReliabilityBin[] {
  const bins = Array.from({ length: 10 }, (_, i) => ({
    min: i * 10,
    max: i === 9 ? 100 : i * 10 + 9,
    n: 0,
    b: 0,
    sum: 0,
  }));
  for (const s of samples) {
    const bin = bins[decileOf(s.score)]!;
    bin.n++;
    if (s.bad) bin.b++;
    bin.sum += s.score;
  }
  return bins.map((x) => ({
    min: x.min,
    max: x.max,
    count: x.n,
    bad: x.b,
    meanScore: x.n ? x.sum / x.n : null,
    badRate: x.n ? x.b / x.n : null,
  }));
}

/** Expected calibration error: Σ_bins (count / N) · |meanScore / 100 − badRate|; null without samples. */
export function calibrationError(bins: readonly ReliabilityBin[]): number | null {
  const total = bins.reduce((n, b) => n + b.count, 0);
  if (total === 0) return null;
  let error = 0;
  for (const b of bins) {
    if (b.count === 0) continue;
    error += (b.count / total) * Math.abs(b.meanScore! / 100 - b.badRate!);
  }
  return error;
}
