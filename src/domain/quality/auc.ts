/**
 * Ranking quality of a score: ROC AUC and the ROC curve. A sample is one scored IP and whether it turned out bad.
 *
 * AUC is the Mann-Whitney statistic: the probability that a bad sample scores above a good one, ties counting a half.
 * It reads only the order of the scores, so it is the same for any increasing transform of the score.
 */
export type Sample = { score: number; bad: boolean };

/** ROC AUC in [0, 1]; null when either class is empty (nothing to rank against). */
export function rocAuc(samples: readonly Sample[]): number | null {
  let positives = 0;
  for (const s of samples) if (s.bad) positives++;
  const negatives = samples.length - positives;
  if (positives === 0 || negatives === 0) return null;
  // Ascending scores; tied scores share the mean of the ranks they span (1-based).
  const sorted = samples.slice().sort((a, b) => a.score - b.score);
  let rankSum = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    let badInRun = 0;
    while (j < sorted.length && sorted[j]!.score === sorted[i]!.score) {
      if (sorted[j]!.bad) badInRun++;
      j++;
    }
    const meanRank = (i + 1 + j) / 2;
    rankSum += badInRun * meanRank;
    i = j;
  }
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

export type RocPoint = { threshold: number; fpr: number; tpr: number };

/**
 * The ROC curve: one point per distinct score, "bad when score >= threshold", from the highest threshold down, after
 * (0, 0). The trapezoid area under it equals rocAuc. Empty when either class is empty.
 */
export function rocCurve(samples: readonly Sample[]): RocPoint[] {
  let positives = 0;
  for (const s of samples) if (s.bad) positives++;
  const negatives = samples.length - positives;
  if (positives === 0 || negatives === 0) return [];
  const sorted = samples.slice().sort((a, b) => b.score - a.score);
  const points: RocPoint[] = [{ threshold: Number.POSITIVE_INFINITY, fpr: 0, tpr: 0 }];
  let tp = 0;
  let fp = 0;
  for (let i = 0; i < sorted.length; ) {
    const threshold = sorted[i]!.score;
    while (i < sorted.length && sorted[i]!.score === threshold) {
      if (sorted[i]!.bad) tp++;
      else fp++;
      i++;
    }
    points.push({ threshold, fpr: fp / negatives, tpr: tp / positives });
  }
  return points;
}

/** Trapezoid area under a ROC curve (what rocAuc computes by ranks). */
export function areaUnder(points: readonly RocPoint[]): number {
  let area = 0;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!;
    const b = points[i]!;
    area += ((b.fpr - a.fpr) * (a.tpr + b.tpr)) / 2;
  }
  return area;
}
