/**
 * An answer shaped and sized like a REST score response (src/transport/operations/score.ts), ~3.5 KB: what the floors
 * send, so they write as many bytes as the service does.
 */
/** The key the metered floor (floor-metered.ts) accepts, which its scenario's requests carry: as long as a service key. */
export const METERED_FLOOR_KEY = 'rk_Ab3dE5fG_0123456789abcdefghijABCDEFGHIJ0123456789';

const base = 'http://127.0.0.1:8080/reports';
const dimension = (code: string, key: string, score: number, weight: number) => ({
  code,
  matched: true,
  score,
  entity: { key, name: key },
  level: score >= 30 ? 'medium' : score >= 10 ? 'low' : 'minimal',
  weight,
  contribution: Math.round(score * weight),
  source: 'published',
  reason: null,
  evidence: { reports: 13, bad_ratings: 2, neutral_ratings: 0, good_ratings: 1, feed_listings: 0 },
});
const dimensions = [
  dimension('ip', '203.0.113.9', 41, 1),
  dimension('subnet', '203.0.112.0/22', 22, 0.6),
  dimension('isp', 'example telecom', 12, 0.4),
  dimension('asn', 'AS64500', 26, 0.45),
  dimension('org', 'example telecom pty ltd', 9, 0.4),
  dimension('city', 'AU-victoria-melbourne', 3, 0.2),
  dimension('region', 'AU-victoria', 2, 0.15),
  dimension('country', 'AU', 1, 0.1),
];

/** The answer for `ip` with `usedToday` calls counted on a 5,000,000-call day. */
export function scoreShapedAnswer(ip: string, usedToday: number) {
  return {
    ok: true,
    endpoint: 'score',
    query: { ip },
    api_key: { name: 'bench 0', prefix: 'rk_Ab3dE5fG' },
    quota: {
      daily_limit: 5000000,
      used_today: usedToday,
      remaining: 5000000 - usedToday,
      over_limit: usedToday >= 5000000,
    },
    score: { overall_score: 41, overall_risk_level: 'medium', matched_count: 8, driver: 'ip', dimensions },
    community_signal: {
      ok: true,
      state: { label: 'quiet', has_spike: false },
      metrics: { lookups_10m: 3, requesters_60m: 2, spike_windows_7d: 0 },
      recent_query_windows: [
        { label: '10:00', hits: 2, requesters: 1 },
        { label: '10:10', hits: 1, requesters: 1 },
      ],
    },
    links: {
      ip: `${base}/ip/${ip}`,
      dimensions: Object.fromEntries(
        dimensions.map((d) => [d.code, `${base}/${d.code}/${encodeURIComponent(d.entity.key)}`]),
      ),
    },
    workspace_memory: {
      ratings: { good: 0, neutral: 0, bad: 1 },
      last_rating: { rating: -1, note: 'card testing', created_at: '2026-11-23T10:04:00.000Z' },
      reports: 2,
    },
    publication: { version: 1, published_at: '2026-11-23T10:00:00.000Z' },
  };
}
