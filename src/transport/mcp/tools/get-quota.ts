import { z } from 'zod';
import { typeError } from '../../../domain/memory/schemas.ts';
import { tierJson } from '../../../domain/metering/tiers.ts';
import { quotaAnswer, type QuotaPosture } from '../../../domain/metering/meter.ts';
import { viewerOf } from '../../http/request-context.ts';
import type { ToolSpec } from '../tool.ts';

const int = { type: 'integer' };
const quota = (description: string) => ({
  type: 'object',
  description,
  properties: {
    daily_limit: int,
    used_today: int,
    remaining: int,
    over_limit: { type: 'boolean' },
    resets_at: { type: 'string', format: 'date-time' },
  },
});

/** get_quota: the workspace's tier and its three daily quotas, read without counting anything. */
export const getQuota: ToolSpec<Record<string, never>> = {
  name: 'get_quota',
  title: 'Tier and daily quotas',
  description:
    "Your workspace's subscription tier and its three daily quotas, today: the API's score calls (REST and GraphQL), direct " +
    "report page views (/workspace/reports/…), and this agent surface's score_ip calls. Each shows daily_limit, used_today, remaining, " +
    'over_limit (true when the next call today is refused) and resets_at (00:00 UTC). One subscription grants all three; the Free tier ' +
    'includes no score calls. Free, read-only.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({}, { error: typeError('a JSON object') }),
  output: {
    type: 'object',
    required: ['ok', 'tier', 'quotas'],
    properties: {
      ok: { const: true },
      tier: {
        type: 'object',
        properties: {
          code: { type: 'string' },
          name: { type: 'string' },
          score_eligible: { type: 'boolean' },
          daily_limit: int,
          burst_per_second: int,
          direct_report_daily_limit: int,
          agent_daily_limit: int,
          price_cents: int,
        },
      },
      quotas: {
        type: 'object',
        properties: {
          api: quota('score calls over REST and /graphql'),
          direct_report: quota('direct report page views'),
          agent: quota('score_ip calls on this agent surface'),
        },
      },
    },
  },
  async run(_args, ctx) {
    const viewer = viewerOf(ctx);
    const tier = ctx.services.tiers.get(viewer.tier);
    const today = await ctx.services.meter.today(viewer.workspaceId, tier);
    const shown = (q: QuotaPosture) => ({ ...quotaAnswer(q), resets_at: q.resetsAt });
    return {
      ok: true,
      tier: tierJson(tier),
      quotas: {
        api: shown(today.api_score),
        direct_report: shown(today.direct_report),
        agent: shown(today.agent_score),
      },
    };
  },
};
