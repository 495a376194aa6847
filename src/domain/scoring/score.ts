/**
 * Scoring one IP from its hierarchy, the summaries of its entities and the caller's own verdict.
 *
 * FORMULA (docs/risk-model.md#overall-score)
 *   Published     p_d = the global layer's score of dimension d's entity (0 when none): what every workspace sees.
 *   Own view      s_d = max(published, the workspace's published own layer) for every d but `ip`; for `ip`, when
 *                 the caller's live verdict is given (own-verdict.ts), the live verdict replaces the published own
 *                 layer: a bad verdict gives s_ip = max(p_ip, 100·(1 − e^(−B/2)), floor), a benign or no
 *                 verdict s_ip = p_ip. `max` is monotone and does not count the caller's evidence twice (its
 *                 community reports are inside the published layer as well).
 *   Overall       noisy-OR  E = 100 · (1 − Π_f (1 − max_{d∈f} w_d · s_d / 100)) over the families f: ip, subnet,
 *                 operator {asn, org, isp}, place {city, region, country} (decision 0038); a benign own verdict then
 *                 scales it, overall = round(E · e^(−G/2)). Bounded, monotone in every s_d, and a benign verdict
 *                 never raises it. The published-only score is the same noisy-OR over p_d; `layers` tells both
 *                 and their difference (published + own change = overall before any override rule).
 *   Matched       a dimension is matched when its score is at least 1, when its evidence holds good ratings, or
 *                 (ip) when the caller has an own verdict: evidence that counts, not a rounded-away sliver.
 *   Contribution  the overall score shared out in proportion to w_d · s_d, as integers that add up to it exactly
 *                 (largest remainder, ties to the more specific dimension). Unmatched dimensions contribute 0.
 *   Driver        the dimension with the largest w_d · s_d (ties: the more specific one); null when overall is 0.
 *   Confidence    confidence.ts.
 *   Reported      what was reported about each entity (outcomes, sources, recency, feed listings): reported.ts; the IP
 *                 inside a listed block names the feed and the block in its reason. It never changes a number above.
 *   Special-purpose addresses: only the `ip` dimension is looked up.
 */
import type { DimensionCode, Hierarchy } from '../network/types.ts';
import type { EntitySummary, EvidenceCounts } from './evidence.ts';
import { scoringDimensions } from './hierarchy.ts';
import { riskLevel, type RiskLevel } from './levels.ts';
import { OWN_FLOOR_SCORE, type OwnReported, type OwnVerdict } from './own-verdict.ts';
import {
  listedBlockReason,
  NOTHING_REPORTED,
  reportedFor,
  withHoldingBlocks,
  type DimensionReported,
} from './reported.ts';
import { confidenceOf } from './confidence.ts';
import { explainLayers, type ScoreLayers } from './layers.ts';

export type { ScoreLayers } from './layers.ts';
import { K_BAD, K_GOOD } from './weights.ts';

export type PublishedLookup = (code: DimensionCode, key: string) => EntitySummary | undefined;
export type ContextualLookup = (code: DimensionCode, key: string) => EntitySummary | undefined;

export const DIMENSION_WEIGHTS: Readonly<Record<DimensionCode, number>> = Object.freeze({
  ip: 1.0,
  subnet: 0.6,
  asn: 0.45,
  org: 0.4,
  isp: 0.4,
  city: 0.2,
  region: 0.15,
  country: 0.1,
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
  /** What was reported about the entity, as the caller may see it (reported.ts). */
  reported: DimensionReported;
};

export type IpScore = {
  overallScore: number;
  overallRiskLevel: RiskLevel;
  matchedCount: number;
  dimensions: DimensionScore[];
  driver: DimensionCode | null;
  layers: ScoreLayers;
  /** 0-100: how much independent, recent evidence backs the overall score (confidence.ts). */
  confidence: number;
};

/**
 * The caller's live own verdict (`own`: null when it has none; left out, the published own layer stands for the
 * `ip` dimension too) and the instant recency is measured at.
 */
export type ScoreContext = {
  own?: OwnVerdict | null | undefined;
  /** What the caller reported about the IP, live (with `own`: both come from its memory). */
  ownReported?: OwnReported | undefined;
  now?: number | undefined;
};

export const NO_EVIDENCE_REASON = 'no evidence has been published for this entity';
export const SLIVER_REASON = 'its evidence is too slight to move the score (it rounds to 0)';

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
  const order = exact
    .map((v, i) => ({ i, rem: v - Math.floor(v) }))
    .filter(({ i }) => shares[i]! > 0)
    .sort((a, b) => b.rem - a.rem || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    out[i]!++;
    left--;
  }
  return out;
}

/** One dimension as built, with its published (global) score and summary (the IP's feeds read its subnet's). */
type Built = { dim: DimensionScore; published: number; pub: EntitySummary | undefined };

/** A dimension object in one shape (every answer's dimensions share one hidden class). */
function dimension(
  code: DimensionCode,
  weight: number,
  entity: DimensionScore['entity'],
  reason: string | null,
  reported: DimensionReported,
): DimensionScore {
  return {
    code,
    matched: false,
    score: 0,
    entity,
    level: null,
    weight,
    contribution: 0,
    source: null,
    evidence: null,
    reason,
    reported,
  };
}

function dimensionOf(
  dim: ReturnType<typeof scoringDimensions>[number],
  published: PublishedLookup,
  contextual: ContextualLookup | undefined,
  live: { own: OwnVerdict | null; reported: OwnReported | undefined } | null,
): Built {
  const weight = DIMENSION_WEIGHTS[dim.code];
  if (dim.entity === null)
    return { dim: dimension(dim.code, weight, null, dim.reason, NOTHING_REPORTED), published: 0, pub: undefined };
  const entity = { key: dim.entity.key, name: dim.entity.name };
  const pub = published(dim.code, dim.entity.key);
  const pubScore = pub ? clampScore(pub.score) : 0;
  // The live verdict replaces the published own layer of the IP itself (it holds everything that layer held, and more).
  const liveIp = live && dim.code === 'ip' ? live : null;
  const own = liveIp?.own;
  const ownLayer = contextual?.(dim.code, dim.entity.key);
  const ctx = liveIp ? undefined : ownLayer;
  const reported = reportedFor(pub, ownLayer, liveIp?.reported);
  const ownCounts = own ? own.counts : ctx?.counts;
  const d = dimension(dim.code, weight, entity, NO_EVIDENCE_REASON, reported);
  if (!pub && !ownCounts) return { dim: d, published: 0, pub };
  let score = Math.max(pubScore, ctx ? clampScore(ctx.score) : 0);
  if (own?.side === 'bad') {
    const ownScore = 100 * (1 - Math.exp(-own.mass / K_BAD));
    score = Math.max(score, clampScore(ownScore), own.floor ? OWN_FLOOR_SCORE : 0);
  }
  // One layer: its (frozen, shared) counts as they are; both: a new element-wise max.
  const evidence = pub && ownCounts ? maxCounts(pub.counts, ownCounts) : (pub?.counts ?? ownCounts)!;
  const matched = score > 0 || evidence.goodRatings > 0 || own != null;
  d.matched = matched;
  d.score = matched ? score : 0;
  d.level = matched ? riskLevel(score) : null;
  d.source = pub && ownCounts ? 'both' : pub ? 'published' : 'workspace';
  d.evidence = evidence;
  d.reason = matched ? null : SLIVER_REASON;
  return { dim: d, published: pubScore, pub };
}

/**
 * The IP's `reported.feeds` gains the listings of its subnet whose block holds it; an IP without evidence of its own
 * then names the feed and the block in its reason instead of "no evidence".
 */
function nameHoldingBlocks(ip: string, built: readonly Built[]): void {
  const ipDim = built.find((b) => b.dim.code === 'ip')?.dim;
  const subnet = built.find((b) => b.dim.code === 'subnet');
  if (!ipDim || !subnet?.pub || !subnet.dim.entity) return;
  const feeds = withHoldingBlocks(ipDim.reported, subnet.pub, subnet.dim.entity.key, ip);
  if (feeds === ipDim.reported) return;
  ipDim.reported = feeds;
  if (ipDim.reason === NO_EVIDENCE_REASON) ipDim.reason = listedBlockReason(feeds.feeds) ?? ipDim.reason;
}

/**
 * Dimensions that read one signal: the AS, its organisation and its ISP brand are views of one operator (the same
 * IPs roll up into each), and city, region and country one place. Each family counts once in the noisy-OR, by its
 * strongest member, instead of as independent witnesses (decision 0038).
 */
const FAMILY: Readonly<Record<DimensionCode, number>> = Object.freeze({
  ip: 0,
  subnet: 1,
  asn: 2,
  org: 2,
  isp: 2,
  city: 3,
  region: 3,
  country: 3,
});

/** Noisy-OR over the families of the dimensions' pressures w_d · s_d / 100 (each family its largest), unrounded. */
function noisyOr(pressure: readonly number[], codes: readonly DimensionCode[]): number {
  const strongest = [0, 0, 0, 0];
  pressure.forEach((p, i) => {
    const f = FAMILY[codes[i]!];
    strongest[f] = Math.max(strongest[f]!, p);
  });
  return 100 * (1 - strongest.reduce((acc, p) => acc * (1 - p), 1));
}

export function scoreIp(
  h: Hierarchy,
  published: PublishedLookup,
  contextual?: ContextualLookup,
  context: ScoreContext = {},
): IpScore {
  const live = context.own === undefined ? null : { own: context.own, reported: context.ownReported };
  const own = live?.own ?? null;
  const built = scoringDimensions(h).map((d) => dimensionOf(d, published, contextual, live));
  const dims = built.map((b) => b.dim);
  nameHoldingBlocks(h.ip, built);
  const pressure = dims.map((d) => (d.weight * d.score) / 100);
  const benignFactor = own?.side === 'benign' ? Math.exp(-own.mass / K_GOOD) : 1;
  const codes = dims.map((d) => d.code);
  const overall = clampScore(noisyOr(pressure, codes) * benignFactor);
  const publishedScore = clampScore(
    noisyOr(
      built.map((b) => (b.dim.weight * b.published) / 100),
      codes,
    ),
  );
  const contributions = apportion(overall, pressure);
  dims.forEach((d, i) => {
    d.contribution = contributions[i]!;
  });

  let driver: DimensionCode | null = null;
  let best = 0;
  pressure.forEach((p, i) => {
    if (p > best) {
      best = p;
      driver = dims[i]!.code;
    }
  });
  const now = context.now ?? Date.now();
  const layers = explainLayers({ publishedScore, overall, own });
  return {
    overallScore: overall,
    overallRiskLevel: riskLevel(overall),
    matchedCount: dims.filter((d) => d.matched).length,
    dimensions: dims,
    driver: overall === 0 ? null : driver,
    layers,
    confidence: confidenceOf(dims, pressure, own, now),
  };
}
