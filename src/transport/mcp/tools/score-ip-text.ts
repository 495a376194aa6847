import type { shapeScore } from '../../rest/score.ts';

type ScoreBody = ReturnType<typeof shapeScore>['body'] & { quota: { resets_at: string } };

/**
 * score_ip's text block, for clients that show only `content`: the verdict in four short lines a model reads at
 * a glance. Not the whole answer as JSON (the MCP specification's default): score_ip is the metered hot call, and
 * repeating its whole answer in the text doubled the bytes of every call and most of the agent surface's cost
 * above REST's (docs/decisions/0012-mcp-one-sdk-server-behind-our-own-transport.md). Every field, per-dimension evidence included, is in structuredContent.
 */
export function renderScore(body: Record<string, unknown>): string {
  const { query, score: s, override: o, community_signal: c, workspace_memory: m, quota: q } = body as ScoreBody;
  const matched = s.dimensions.filter((d) => d.matched).map((d) => `${d.code} ${d.score}`).join(', ');
  return `${query.ip}: risk score ${s.overall_score}/100 (${s.overall_risk_level})${s.driver ? `, driven by ${s.driver}` : ''}; `
    + `${s.matched_count} of 8 dimensions matched${matched ? ` (${matched})` : ''}.\n`
    + (o ? `Override: ${o.explanation}\n` : '')
    + `Community signal: ${c.ok ? `${c.state.label}, ${c.metrics.lookups_10m} lookups in 10 min` : 'unavailable'}. `
    + `Your workspace: ratings ${m.ratings.good} good, ${m.ratings.neutral} neutral, ${m.ratings.bad} bad; reports ${m.reports}.\n`
    + `Agent quota: ${q.used_today}/${q.daily_limit} used today, resets ${q.resets_at}.\n`
    + 'Dimensions with their evidence, links and the full quota are in structuredContent.';
}
