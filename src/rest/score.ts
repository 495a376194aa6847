import { defineOperation } from './operation.ts';
import { rateLimitHeaders, type QuotaPosture } from '../domain/metering/meter.ts';

/** POST /risk_api/score/: the metered score, executed as one fixed query on the shared schema. */
export const scoreOperation = defineOperation('score', /* GraphQL */ `
  query Score($ip: String!) {
    score(ip: $ip) {
      ip
      apiKey { name prefix }
      quota { dailyLimit usedToday remaining overLimit resetsAt }
      score {
        overallScore overallRiskLevel matchedCount driver
        dimensions {
          code matched score level weight contribution source reason
          entity { key name }
          evidence { reports badRatings neutralRatings goodRatings feedListings }
        }
      }
      communitySignal {
        ok label hasSpike lookups10m requesters60m spikeWindows7d
        recentQueryWindows { label hits requesters }
      }
      memory { goodRatings neutralRatings badRatings reports lastRating { rating note createdAt } }
      reportLink
      dimensionLinks { code url }
      publication { version publishedAt }
    }
  }`);

type Evidence = { reports: number; badRatings: number; neutralRatings: number; goodRatings: number; feedListings: number };
type ScoreData = { score: {
  ip: string; apiKey: { name: string; prefix: string };
  quota: { dailyLimit: number; usedToday: number; remaining: number; overLimit: boolean; resetsAt: string };
  score: { overallScore: number; overallRiskLevel: string; matchedCount: number; driver: string | null; dimensions: Array<{
    code: string; matched: boolean; score: number; level: string | null; weight: number; contribution: number; source: string | null;
    reason: string | null; entity: { key: string; name: string } | null; evidence: Evidence | null }> };
  communitySignal: { ok: boolean; label: string; hasSpike: boolean; lookups10m: number; requesters60m: number; spikeWindows7d: number;
    recentQueryWindows: Array<{ label: string; hits: number; requesters: number }> };
  memory: { goodRatings: number; neutralRatings: number; badRatings: number; reports: number; lastRating: { rating: number; note: string; createdAt: string } | null };
  reportLink: string; dimensionLinks: Array<{ code: string; url: string }>;
  publication: { version: number; publishedAt: string | null };
} };

export function shapeScore(data: ScoreData) {
  const s = data.score;
  const quota = { daily_limit: s.quota.dailyLimit, used_today: s.quota.usedToday, remaining: s.quota.remaining, over_limit: s.quota.overLimit };
  const resetMs = Date.parse(s.quota.resetsAt);
  const posture: QuotaPosture = { ...quota, resets_at: s.quota.resetsAt, retry_after_s: Math.max(1, Math.ceil((resetMs - Date.now()) / 1000)) };
  const c = s.communitySignal;
  return {
    body: {
      ok: true, endpoint: 'score',
      query: { ip: s.ip },
      api_key: s.apiKey,
      quota,
      score: {
        overall_score: s.score.overallScore, overall_risk_level: s.score.overallRiskLevel, matched_count: s.score.matchedCount,
        driver: s.score.driver,
        dimensions: s.score.dimensions.map((d) => ({
          code: d.code, matched: d.matched, score: d.score, entity: d.entity, level: d.level, weight: d.weight,
          contribution: d.contribution, source: d.source, reason: d.reason,
          evidence: d.evidence && { reports: d.evidence.reports, bad_ratings: d.evidence.badRatings, neutral_ratings: d.evidence.neutralRatings, good_ratings: d.evidence.goodRatings, feed_listings: d.evidence.feedListings },
        })),
      },
      community_signal: {
        ok: c.ok, state: { label: c.label, has_spike: c.hasSpike },
        metrics: { lookups_10m: c.lookups10m, requesters_60m: c.requesters60m, spike_windows_7d: c.spikeWindows7d },
        recent_query_windows: c.recentQueryWindows,
      },
      links: { ip: s.reportLink, dimensions: Object.fromEntries(s.dimensionLinks.map((l) => [l.code, l.url])) },
      workspace_memory: {
        ratings: { good: s.memory.goodRatings, neutral: s.memory.neutralRatings, bad: s.memory.badRatings },
        last_rating: s.memory.lastRating && { rating: s.memory.lastRating.rating, note: s.memory.lastRating.note, created_at: s.memory.lastRating.createdAt },
        reports: s.memory.reports,
      },
      publication: { version: s.publication.version, published_at: s.publication.publishedAt },
    },
    replayed: false,
    headers: rateLimitHeaders(posture),
  };
}
