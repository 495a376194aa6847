import {
  INVALID_IP,
  MAX_BATCH_IPS,
  scoreBatchInputSchema,
  scoreBatchRequest,
  type ScoreBatchItem,
} from '../../domain/lookups/score-batch.ts';
import { SCORE_BATCHES, inBatchTurn } from '../http/score-batch-gate.ts';
import { viewerOf } from '../http/request-context.ts';
import { object } from './schemas.ts';
import { defineOperation, METERED_ERRORS } from './operation.ts';
import { from, oneOfBy } from './wire.ts';
import { scoreExample, scoreResponse } from './score.ts';

/** The batch: one item per requested IP, each the single score's answer less its key and quota, or its own error. */
const { ok: _ok, endpoint: _endpoint, api_key: apiKey, quota: scoreQuota, ...scoredParts } = scoreResponse.properties;
const scoreBatchResponse = object({
  ok: { const: true },
  endpoint: { const: 'score_batch' },
  api_key: apiKey,
  quota: {
    ...scoreQuota,
    description: 'The daily score quota after this batch: one call counted per distinct valid IP.',
  },
  results: {
    type: 'array',
    minItems: 1,
    maxItems: MAX_BATCH_IPS,
    description:
      'One item per requested IP, in request order; a repeated IP (after canonicalisation) repeats its answer.',
    items: oneOfBy((item: ScoreBatchItem) => (item.score ? 0 : 1), {
      oneOf: [
        from(
          'score',
          object(
            { ok: { const: true }, ...scoredParts },
            { description: 'Scored: the same objects as the single score answer.' },
          ),
        ),
        object(
          {
            ip: from('input', { type: 'string', description: 'The item as sent.' }),
            ok: { const: false },
            error: { const: INVALID_IP },
            message: from('error.message', { type: 'string', description: 'What is wrong with it.' }),
          },
          { description: 'Not an IPv4 or IPv6 address: not scored and not counted.' },
        ),
      ],
    }),
  },
});

const scoreBatchRequestExample = { ips: ['9.9.9.9', 'not-an-ip', '9.9.9.9'] };
const {
  ok: _okExample,
  endpoint: _endpointExample,
  api_key: batchKey,
  quota: _quotaExample,
  ...scoredItem
} = scoreExample;
const invalidItem = {
  ip: 'not-an-ip',
  ok: false,
  error: 'invalid_ip',
  message: 'The item is not a valid IPv4 or IPv6 address; it was not counted.',
};
const scoreBatchExample = {
  ok: true,
  endpoint: 'score_batch',
  api_key: batchKey,
  quota: { daily_limit: 1000, used_today: 18, remaining: 982, over_limit: false },
  results: [{ ok: true, ...scoredItem }, invalidItem, { ok: true, ...scoredItem }],
};

/** POST /risk_api/score/batch/, the GraphQL field `scoreBatch` and the MCP tool score_ips: 1 to 1,000 metered score calls. */
export const scoreBatch = defineOperation({
  name: 'score_batch',
  path: '/risk_api/score/batch',
  input: scoreBatchInputSchema,
  resolve: ({ ips }, ctx) =>
    scoreBatchRequest(
      { ips, viewer: viewerOf(ctx), requester: ctx.clientIp, surface: ctx.surface, via: ctx.via },
      ctx.services,
    ),
  output: scoreBatchResponse,
  metering: 'metered',
  inTurn: (workspaceId, input, run) => inBatchTurn(workspaceId, input.ips, run),
  doc: {
    tag: 'Scoring',
    operationId: 'scoreBatch',
    summary: `Score 1 to ${MAX_BATCH_IPS} IPs in one call (metered)`,
    description:
      'One answer per requested IP, in request order: the same objects as the single score (query, score, community_signal, ' +
      'links, workspace_memory, publication), or `{ ip, ok: false, error: "invalid_ip", message }` for an item that is not an IP, ' +
      'which is not counted. A repeated IP (after canonicalisation) is scored and counted once. The batch costs one call per ' +
      "distinct valid IP on the daily score quota and on the key's burst limit, reserved all or nothing before any IP is scored: " +
      "when fewer are left today it is refused with 429 quota_exceeded, when they do not fit this second's burst window with 429 " +
      "rate_limited, and either refusal counts nothing. A batch of more distinct valid IPs than the tier's burst_per_second can " +
      `never pass, and is refused with 400 invalid_request. Batches of ${SCORE_BATCHES.minItems} items or more take turns on each server, one at a ` +
      `time (single score calls and smaller batches never wait for them); a workspace may have ${SCORE_BATCHES.perCaller} running or waiting, and ` +
      'one more is refused at once with 429 rate_limited and `in_flight` (nothing counted). Needs a tier that includes score.',
    request: { schema: 'ScoreBatchRequest', example: scoreBatchRequestExample },
    response: {
      schema: 'ScoreBatchResponse',
      description: 'Scored and counted (the quota after the batch).',
      example: scoreBatchExample,
    },
    errors: METERED_ERRORS,
  },
});
