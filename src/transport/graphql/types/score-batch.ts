import { builder } from '../builder.ts';
import type { ListSize } from '../cost.ts';
import { scoreBatch } from '../../operations/score-batch.ts';
import { checkInput } from '../../../domain/validation.ts';
import { ApiKeyInfo } from './workspace.ts';
import { Quota, ScoreResult } from './score.ts';
import {
  MAX_BATCH_IPS,
  scoreBatchInputSchema,
  type ScoreBatchItem,
  type ScoreBatchOutcome,
} from '../../../domain/lookups/score-batch.ts';

const ScoreItemError = builder.objectRef<NonNullable<ScoreBatchItem['error']>>('ScoreItemError').implement({
  description: 'Why one item of a batch was not scored; it was not counted.',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'invalid_ip: the item is not an IPv4 or IPv6 address.' }),
    message: t.exposeString('message', { description: 'What is wrong with it.' }),
  }),
});

const ScoreBatchItemRef = builder.objectRef<ScoreBatchItem>('ScoreBatchItem').implement({
  description: 'One requested IP of a batch, in request order: its score, or the error that kept it out of the batch.',
  fields: (t) => ({
    input: t.exposeString('input', { description: 'The item as sent.' }),
    score: t.expose('score', {
      type: ScoreResult,
      nullable: true,
      description: "The score of the canonical IP (quota: the batch's); null when the item is not an IP.",
    }),
    error: t.expose('error', { type: ScoreItemError, nullable: true, description: 'Null when scored.' }),
  }),
});

const ScoreBatchRef = builder.objectRef<ScoreBatchOutcome>('ScoreBatch').implement({
  description: 'The answer of one metered batch of score calls.',
  fields: (t) => ({
    apiKey: t.expose('apiKey', { type: ApiKeyInfo, description: 'The key used.' }),
    quota: t.expose('quota', {
      type: Quota,
      description: 'Daily quota after the batch: one call counted per distinct valid IP.',
    }),
    results: t.expose('results', {
      type: [ScoreBatchItemRef],
      description: 'One item per requested IP, in request order (a repeated IP repeats its answer).',
      extensions: { list: { max: MAX_BATCH_IPS } satisfies ListSize },
    }),
  }),
});

builder.queryField('scoreBatch', (t) =>
  t.field({
    type: ScoreBatchRef,
    description:
      `Score 1 to ${MAX_BATCH_IPS} IPs in one call, as POST /risk_api/score/batch/ does. Metered on the same daily quota as score: ` +
      'one call per distinct valid IP, reserved all or nothing before any IP is scored (too few left: quota_exceeded, nothing counted); ' +
      "the key's burst limit counts each of them too, and a batch of more distinct IPs than the tier's burst_per_second is refused " +
      '(invalid_request). An item that is not an IP is answered with its error and not counted.',
    args: { ips: t.arg.stringList({ required: true, description: 'IPv4 or IPv6 addresses.' }) },
    resolve: (_root, args, ctx) => scoreBatch.resolve(checkInput(scoreBatchInputSchema, { ips: args.ips }), ctx),
  }),
);
