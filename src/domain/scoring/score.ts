/**
 * Scoring one IP from its hierarchy and the summaries of its entities.
 *
 * FORMULA
 *   Dimension score  s_d = max(published score, workspace score) of the dimension's entity, 0
 *                    when neither summary exists. `max` is monotone in both and does not count
 *                    the caller's own evidence twice (it is usually inside the published
 *                    summary as well). Evidence counts are the element-wise max of the two.
 *   Overall          noisy-OR  overall = round(100 · (1 − Π_d (1 − w_d · s_d / 100)))
 *                    with w = ip 1.0, subnet 0.6, asn 0.45, org 0.4, isp 0.4, city 0.2,
 *                    region 0.15, country 0.1. Bounded (each factor is in [0, 1]) and monotone
 *                    (raising any s_d lowers the product). A country at 100 alone gives 10.
 *   Contribution     the overall score shared out in proportion to w_d · s_d, as integers that
 *                    add up to the overall score exactly (largest remainder, ties to the more
 *                    specific dimension). Unmatched dimensions contribute 0.
 *   Driver           the dimension with the largest w_d · s_d (ties: the more specific one);
 *                    null when the overall score is 0.
 *   Special-purpose addresses: only the `ip` dimension is looked up.
 */
import type { DimensionCode, Hierarchy } from '../network/types.ts';
import type { EntitySummary, EvidenceCounts } from './evidence.ts';
import { scoringDimensions } from './hierarchy.ts';
import { riskLevel, type RiskLevel } from './levels.ts';

export type PublishedLookup = (code: DimensionCode, key: string) => EntitySummary | undefined;
export type ContextualLookup = (code: DimensionCode, key: string) => EntitySummary | undefined;

export const DIMENSION_WEIGHTS: Readonly<Record<DimensionCode, number>> = Object.freeze({
  ip: 1.0, subnet: 0.6, asn: 0.45, org: 0.4, isp: 0.4, city: 0.2, region: 0.15, country: 0.1,
});

export type DimensionScore = {
  code: DimensionCode;
  matched: boolean;
  score: number;
  entity: { key: string; name: string } | null;
  level: RiskLevel | null;
  weight: number;
  contribution: number;
  source: 'published' | 'workspace' | 'both' | null;
  evidence: EvidenceCounts | null;
  reason: string | null;
};

export type IpScore = {
  overallScore: number;
  overallRiskLevel: RiskLevel;
  matchedCount: number;
  dimensions: DimensionScore[];
  driver: DimensionCode | null;
};

export const NO_EVIDENCE_REASON = 'no evidence has been published for this entity';

function maxCounts(a: EvidenceCounts, b: EvidenceCounts): EvidenceCounts {
  return {
    reports: Math.max(a.reports, b.reports),
    badRatings: Math.max(a.badRatings, b.badRatings),
    neutralRatings: Math.max(a.neutralRatings, b.neutralRatings),
    goodRatings: Math.max(a.goodRatings, b.goodRatings),
    feedListings: Math.max(a.feedListings, b.feedListings),
  };
}

function clampScore(score: number): number {
  return Number.isFinite(score) ? Math.min(100, Math.max(0, Math.round(score))) : 0;
}

/** Integers proportional to `shares` that sum to `total` (largest remainder; ties to lower index). */
function apportion(total: number, shares: number[]): number[] {
  const sum = shares.reduce((a, b) => a + b, 0);
  if (total === 0 || sum === 0) return shares.map(() => 0);
  const exact = shares.map((s) => (total * s) / sum);
  const out = exact.map(Math.floor);
  let left = total - out.reduce((a, b) => a + b, 0);
  const order = exact.map((v, i) => ({ i, rem: v - Math.floor(v) }))
    .filter(({ i }) => shares[i]! > 0)
    .sort((a, b) => b.rem - a.rem || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    out[i]!++;
    left--;
  }
  return out;
}

export function scoreIp(h: Hierarchy, published: PublishedLookup, contextual?: ContextualLookup): IpScore {
  const dims = scoringDimensions(h).map((dim): DimensionScore => {
    const weight = DIMENSION_WEIGHTS[dim.code];
    if (dim.entity === null) {
      return { code: dim.code, matched: false, score: 0, entity: null, level: null, weight, contribution: 0,
        source: null, evidence: null, reason: dim.reason };
    }
    const entity = { key: dim.entity.key, name: dim.entity.name };
    const pub = published(dim.code, dim.entity.key);
    const ctx = contextual?.(dim.code, dim.entity.key);
    if (!pub && !ctx) {
      return { code: dim.code, matched: false, score: 0, entity, level: null, weight, contribution: 0,
        source: null, evidence: null, reason: NO_EVIDENCE_REASON };
    }
    const score = Math.max(pub ? clampScore(pub.score) : 0, ctx ? clampScore(ctx.score) : 0);
    // One layer: its (frozen, shared) counts as they are; both: a new element-wise max.
    const evidence = pub && ctx ? maxCounts(pub.counts, ctx.counts) : (pub ?? ctx)!.counts;
    const source = pub && ctx ? 'both' : pub ? 'published' : 'workspace';
    return { code: dim.code, matched: true, score, entity, level: riskLevel(score), weight, contribution: 0,
      source, evidence, reason: null };
  });

  const pressure = dims.map((d) => (d.weight * d.score) / 100);
  const keep = pressure.reduce((acc, p) => acc * (1 - p), 1);
  const overall = clampScore(100 * (1 - keep));
  const contributions = apportion(overall, pressure);
  dims.forEach((d, i) => { d.contribution = contributions[i]!; });

  let driver: DimensionCode | null = null;
  let best = 0;
  pressure.forEach((p, i) => {
    if (p > best) { best = p; driver = dims[i]!.code; }
  });
  return {
    overallScore: overall,
    overallRiskLevel: riskLevel(overall),
    matchedCount: dims.filter((d) => d.matched).length,
    dimensions: dims,
    driver: overall === 0 ? null : driver,
  };
}
