import { defineOperation } from './operation.ts';
import { rateLimitHeaders } from '../../domain/metering/meter.ts';
import { QUOTA_FIELDS, SCORE_FIELDS, scoreItem, type QuotaData, type ScoreFields } from './score.ts';

/**
 * POST /risk_api/score/batch/: the metered batch, one fixed query on the shared schema (scoreBatch) selecting
 * each IP's answer with the single score's SCORE_FIELDS and shaping it with the single score's scoreItem.
 */
export const scoreBatchOperation = defineOperation('score_batch', /* GraphQL */ `
  query ScoreBatch($ips: [String!]!) {
    scoreBatch(ips: $ips) {
      api_key: apiKey { name prefix }
      ${QUOTA_FIELDS}
      results {
        input
        error { code message }
        score { ${SCORE_FIELDS} }
      }
    }
  }`);

export type ScoreBatchData = { scoreBatch: {
  api_key: { name: string; prefix: string }; quota: QuotaData;
  results: Array<{ input: string; error: { code: string; message: string } | null; score: ScoreFields | null }>;
} };

export function shapeScoreBatch(data: ScoreBatchData) {
  const b = data.scoreBatch;
  const { resetsAt: _resetsAt, retryAfterSeconds, ...quota } = b.quota;
  return {
    body: {
      ok: true, endpoint: 'score_batch', api_key: b.api_key, quota,
      results: b.results.map((r) => (r.score ? { ok: true, ...scoreItem(r.score) } : { ip: r.input, ok: false, error: r.error!.code, message: r.error!.message })),
    },
    replayed: false,
    headers: rateLimitHeaders({ dailyLimit: quota.daily_limit, remaining: quota.remaining, retryAfterSeconds }),
  };
}
