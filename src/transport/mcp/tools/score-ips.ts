import { MAX_BATCH_IPS, scoreBatchInputSchema, type BatchIp } from '../../../domain/lookups/score-batch.ts';
import { scoreBatchOperation, shapeScoreBatch, type ScoreBatchData } from '../../rest/score-batch.ts';
import { runOperation } from '../../rest/operation.ts';
import { scoreBatchResponse } from '../../rest/openapi-schemas.ts';
import type { ToolSpec } from '../tool.ts';
import { inBatchTurn } from '../../http/score-batch-gate.ts';
import { viewerOf } from '../../http/request-context.ts';

const quota = scoreBatchResponse.properties.quota;

/** REST's batch answer, whose quota is the agent surface's and says when it resets (an agent reads no headers). */
const output = {
  ...scoreBatchResponse,
  properties: {
    ...scoreBatchResponse.properties,
    quota: { ...quota, properties: { ...quota.properties, resets_at: { type: 'string', format: 'date-time', description: 'Next 00:00 UTC, when the count resets.' } } },
  },
};

/** score_ips: the same fixed query as POST /risk_api/score/batch/, counted on the agent quota (the context's surface). */
export const scoreIps: ToolSpec<{ ips: BatchIp[] }> = {
  name: 'score_ips',
  title: 'Score several IP addresses',
  description: `Scores 1 to ${MAX_BATCH_IPS} IPv4 or IPv6 addresses in one call, as POST /risk_api/score/batch/ does: one result per address `
    + 'in the order given, each the same answer as score_ip (score, dimensions, community signal, your workspace\'s memory, links), or '
    + '{ ip, ok: false, error: "invalid_ip", message } for an item that is not an address. '
    + 'Metered on the daily agent quota like score_ip: one call per distinct valid address (a repeated address counts once), reserved '
    + 'all or nothing before any is scored, so when too few are left nothing is counted (quota_exceeded). Each address also counts on '
    + 'the key\'s per-second burst limit, and a batch of more distinct addresses than that limit is refused (invalid_request names it). '
    + 'Prefer it to many score_ip calls when you hold a list.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: scoreBatchInputSchema,
  output,
  run(_input, ctx, raw) {
    // Takes its turn with REST's batches (score-batch-gate.ts). The operation takes the strings as sent; its
    // resolver reads the checked items from the context (ctx.input).
    return inBatchTurn(viewerOf(ctx).workspaceId, raw.ips, async () => {
      const data = await runOperation<ScoreBatchData>(scoreBatchOperation, { ips: raw.ips }, ctx);
      const { body } = shapeScoreBatch(data);
      return { ...body, quota: { ...body.quota, resets_at: data.scoreBatch.quota.resetsAt } };
    });
  },
  render: renderBatch,
};

/** The text block: one line per result, the verdicts at a glance; every field is in structuredContent. */
function renderBatch(body: Record<string, unknown>): string {
  const b = body as ReturnType<typeof shapeScoreBatch>['body'] & { quota: { resets_at: string } };
  const lines = b.results.map((r) => ('query' in r
    ? `${r.query.ip}: risk score ${r.score.overall_score}/100 (${r.score.overall_risk_level})${r.score.driver ? `, driven by ${r.score.driver}` : ''}`
      + `${r.override ? `; your rule ${r.override.rule_id} (${r.override.action}) set it, the evidence gives ${r.override.evidence_score}` : ''}`
      + `; community ${r.community_signal.ok ? r.community_signal.state.label : 'unavailable'}`
    : `${JSON.stringify(r.ip)}: ${r.error}, not counted`));
  return `${lines.join('\n')}\nAgent quota: ${b.quota.used_today}/${b.quota.daily_limit} used today, resets ${b.quota.resets_at}.\n`
    + 'Dimensions with their evidence, memory, links and the full quota are in structuredContent.';
}
