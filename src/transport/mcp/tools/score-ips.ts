import { MAX_BATCH_IPS, type BatchIp } from '../../../domain/lookups/score-batch.ts';
import { scoreBatch } from '../../operations/score-batch.ts';
import type { ToolSpec } from '../tool.ts';
import { operationTool } from './operation-tool.ts';
import type { AgentQuota, ScoredText } from './score-ip-text.ts';

/**
 * score_ips: the operation of POST /risk_api/score/batch/, counted on the agent quota (the context's surface), taking
 * its turn with REST's batches (score-batch-gate.ts).
 */
export const scoreIps: ToolSpec<{ ips: BatchIp[] }> = operationTool(scoreBatch, {
  name: 'score_ips',
  title: 'Score several IP addresses',
  description:
    `Scores 1 to ${MAX_BATCH_IPS} IPv4 or IPv6 addresses in one call, as POST /risk_api/score/batch/ does: one result per address ` +
    "in the order given, each the same answer as score_ip (score, dimensions, community signal, your workspace's memory, links), or " +
    '{ ip, ok: false, error: "invalid_ip", message } for an item that is not an address. ' +
    'Metered on the daily agent quota like score_ip: one call per distinct valid address (a repeated address counts once), reserved ' +
    'all or nothing before any is scored, so when too few are left nothing is counted (quota_exceeded). Each address also counts on ' +
    "the key's per-second burst limit, and a batch of more distinct addresses than that limit is refused (invalid_request names it). " +
    'Prefer it to many score_ip calls when you hold a list.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  render: renderBatch,
});

/** The text block: one line per result, the verdicts at a glance; every field is in structuredContent. */
function renderBatch(body: Record<string, unknown>): string {
  const b = body as AgentQuota & {
    results: Array<(ScoredText & { ok: true }) | { ip: string; ok: false; error: string }>;
  };
  const lines = b.results.map((r) =>
    'query' in r
      ? `${r.query.ip}: risk score ${r.score.overall_score}/100 (${r.score.overall_risk_level})${r.score.driver ? `, driven by ${r.score.driver}` : ''}` +
        `${r.override ? `; your rule ${r.override.rule_id} (${r.override.action}) set it, the evidence gives ${r.override.evidence_score}` : ''}` +
        `; community ${r.community_signal.ok ? r.community_signal.state.label : 'unavailable'}`
      : `${JSON.stringify(r.ip)}: ${r.error}, not counted`,
  );
  return (
    `${lines.join('\n')}\nAgent quota: ${b.quota.used_today}/${b.quota.daily_limit} used today, resets ${b.quota.resets_at}.\n` +
    'Dimensions with their evidence, memory, links and the full quota are in structuredContent.'
  );
}
