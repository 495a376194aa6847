/** The fields of a score answer (score_ip's, and each scored item of score_ips') that the text blocks show. */
export type ScoredText = {
  query: { ip: string };
  score: {
    overall_score: number;
    overall_risk_level: string;
    matched_count: number;
    driver: string | null;
    confidence: number;
    layers: { explanation: string };
    dimensions: Array<{ code: string; matched: boolean; score: number }>;
  };
  override: { rule_id: number; action: string; evidence_score: number; explanation: string } | null;
  community_signal: { ok: boolean; state: { label: string }; metrics: { lookups_10m: number } };
  workspace_memory: { ratings: { good: number; neutral: number; bad: number }; reports: number };
};
export type AgentQuota = { quota: { daily_limit: number; used_today: number; resets_at: string } };
type ScoreBody = ScoredText & AgentQuota;

/**
 * score_ip's text block, for clients that show only `content`: the verdict in four short lines a model reads at
 * a glance. Not the whole answer as JSON (the MCP specification's default): score_ip is the metered hot call, and
 * repeating its whole answer in the text doubled the bytes of every call and most of the agent surface's cost
 * above REST's (docs/decisions/0012-mcp-one-sdk-server-behind-our-own-transport.md). Every field, per-dimension evidence included, is in structuredContent.
 */
export function renderScore(body: Record<string, unknown>): string {
  const { query, score: s, override: o, community_signal: c, workspace_memory: m, quota: q } = body as ScoreBody;
  const matched = s.dimensions
    .filter((d) => d.matched)
    .map((d) => `${d.code} ${d.score}`)
    .join(', ');
  return (
    `${query.ip}: risk score ${s.overall_score}/100 (${s.overall_risk_level})${s.driver ? `, driven by ${s.driver}` : ''}; ` +
    `confidence ${s.confidence}/100; ${s.matched_count} of 8 dimensions matched${matched ? ` (${matched})` : ''}.\n` +
    `${s.layers.explanation}\n` +
    (o ? `Override: ${o.explanation}\n` : '') +
    `Community signal: ${c.ok ? `${c.state.label}, ${c.metrics.lookups_10m} lookups in 10 min` : 'unavailable'}. ` +
    `Your workspace: ratings ${m.ratings.good} good, ${m.ratings.neutral} neutral, ${m.ratings.bad} bad; reports ${m.reports}.\n` +
    `Agent quota: ${q.used_today}/${q.daily_limit} used today, resets ${q.resets_at}.\n` +
    'Dimensions with their evidence, links and the full quota are in structuredContent.'
  );
}
