import { defineOperation } from './operation.ts';
import { rateLimitHeaders } from '../../domain/metering/meter.ts';

/**
 * POST /risk_api/score/: the metered score, executed as one fixed query on the shared schema. Its aliases are the
 * spec's snake_case names, so graphql-jit's result already holds the `score`, `api_key` and dimension objects of
 * the response; shapeScore only regroups the few parts nested differently. SCORE_FIELDS and scoreItem are one
 * IP's selection and shaping, shared with the batch (score-batch.ts).
 */
export const SCORE_FIELDS = /* GraphQL */ `
      ip
      score {
        overall_score: overallScore overall_risk_level: overallRiskLevel matched_count: matchedCount driver
        dimensions {
          code matched score entity { key name } level weight contribution source reason
          evidence { reports bad_ratings: badRatings neutral_ratings: neutralRatings good_ratings: goodRatings feed_listings: feedListings }
        }
      }
      communitySignal {
        ok label hasSpike lookups10m requesters60m spikeWindows7d
        recentQueryWindows { label hits requesters }
        networks {
          subnet { key ok label hasSpike lookups10m requesters60m spikeWindows7d }
          asn { key ok label hasSpike lookups10m requesters60m spikeWindows7d }
        }
      }
      override { ruleId targetKind target action points reason expiresAt evidenceScore evidenceLevel explanation }
      memory { goodRatings neutralRatings badRatings reports lastRating { rating note createdAt } }
      reportLink
      dimensionLinks { code url }
      publication { version publishedAt }`;
export const QUOTA_FIELDS = 'quota { daily_limit: dailyLimit used_today: usedToday remaining over_limit: overLimit resetsAt retryAfterSeconds }';

export const scoreOperation = defineOperation('score', /* GraphQL */ `
  query Score($ip: String!) {
    score(ip: $ip) {
      api_key: apiKey { name prefix }
      ${QUOTA_FIELDS}
      ${SCORE_FIELDS}
    }
  }`);

type NetworkData = { key: string; ok: boolean; label: string; hasSpike: boolean; lookups10m: number; requesters60m: number; spikeWindows7d: number };
type Evidence = { reports: number; bad_ratings: number; neutral_ratings: number; good_ratings: number; feed_listings: number };
export type QuotaData = { daily_limit: number; used_today: number; remaining: number; over_limit: boolean; resetsAt: string; retryAfterSeconds: number };
export type ScoreData = { score: ScoreFields & { api_key: { name: string; prefix: string }; quota: QuotaData } };
/** One IP's part of an answer, as SCORE_FIELDS selects it. */
export type ScoreFields = {
  ip: string;
  score: { overall_score: number; overall_risk_level: string; matched_count: number; driver: string | null; dimensions: Array<{
    code: string; matched: boolean; score: number; entity: { key: string; name: string } | null; level: string | null; weight: number;
    contribution: number; source: string | null; reason: string | null; evidence: Evidence | null }> };
  communitySignal: { ok: boolean; label: string; hasSpike: boolean; lookups10m: number; requesters60m: number; spikeWindows7d: number;
    recentQueryWindows: Array<{ label: string; hits: number; requesters: number }>;
    networks: { subnet: NetworkData | null; asn: NetworkData | null } };
  override: { ruleId: number; targetKind: string; target: string; action: string; points: number; reason: string; expiresAt: string | null;
    evidenceScore: number; evidenceLevel: string; explanation: string } | null;
  memory: { goodRatings: number; neutralRatings: number; badRatings: number; reports: number; lastRating: { rating: number; note: string; createdAt: string } | null };
  reportLink: string; dimensionLinks: Array<{ code: string; url: string }>;
  publication: { version: number; publishedAt: string | null };
};

export function shapeScore(data: ScoreData) {
  const s = data.score;
  const { resetsAt: _resetsAt, retryAfterSeconds, ...quota } = s.quota;
  const { query, ...item } = scoreItem(s);
  return {
    body: { ok: true, endpoint: 'score', query, api_key: s.api_key, quota, ...item },
    replayed: false,
    headers: rateLimitHeaders({ dailyLimit: quota.daily_limit, remaining: quota.remaining, retryAfterSeconds }),
  };
}

/** One IP's answer as every score surface words it: the query, score, community signal, links, memory, publication. */
export function scoreItem(s: ScoreFields) {
  const c = s.communitySignal;
  const dimensionLinks: Record<string, string> = {};
  for (const l of s.dimensionLinks) dimensionLinks[l.code] = l.url;
  return {
    query: { ip: s.ip },
    score: s.score,
    override: s.override && {
      rule_id: s.override.ruleId, target_kind: s.override.targetKind, target: s.override.target, action: s.override.action,
      points: s.override.points, reason: s.override.reason, expires_at: s.override.expiresAt,
      evidence_score: s.override.evidenceScore, evidence_level: s.override.evidenceLevel, explanation: s.override.explanation,
    },
    community_signal: {
      ok: c.ok, state: { label: c.label, has_spike: c.hasSpike },
      metrics: { lookups_10m: c.lookups10m, requesters_60m: c.requesters60m, spike_windows_7d: c.spikeWindows7d },
      recent_query_windows: c.recentQueryWindows,
      networks: { subnet: networkSignal(c.networks.subnet), asn: networkSignal(c.networks.asn) },
    },
    links: { ip: s.reportLink, dimensions: dimensionLinks },
    workspace_memory: {
      ratings: { good: s.memory.goodRatings, neutral: s.memory.neutralRatings, bad: s.memory.badRatings },
      last_rating: s.memory.lastRating && { rating: s.memory.lastRating.rating, note: s.memory.lastRating.note, created_at: s.memory.lastRating.createdAt },
      reports: s.memory.reports,
    },
    publication: { version: s.publication.version, published_at: s.publication.publishedAt },
  };
}

/** A network's signal in the layout of the IP's own (ok, state, metrics), led by the network's key. */
export function networkSignal(n: NetworkData | null) {
  return n && {
    key: n.key, ok: n.ok, state: { label: n.label, has_spike: n.hasSpike },
    metrics: { lookups_10m: n.lookups10m, requesters_60m: n.requesters60m, spike_windows_7d: n.spikeWindows7d },
  };
}
