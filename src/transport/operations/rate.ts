import { rateInputSchema } from '../../domain/memory/schemas.ts';
import { RATING_VALUES } from '../../domain/memory/vocabulary.ts';
import { writeRating, type RatingRow } from '../../domain/memory/writes.ts';
import type { Written } from '../../domain/memory/idempotency.ts';
import { viewerOf } from '../http/request-context.ts';
import { dateTime, enumOf, freeQuota, object, str } from './schemas.ts';
import { FREE } from './examples.ts';
import { defineOperation } from './operation.ts';
import { from, same } from './wire.ts';

/** A write's answer: whether it was a replay, and the row stored (read again on a replay, which returned only its id). */
export type RateResult = Written<RatingRow> & { row: RatingRow };

const rateResponse = object({
  ok: { const: true },
  endpoint: { const: 'rate' },
  quota: same(freeQuota),
  report: from(
    'row',
    object(
      {
        ip: from('subject.key', str),
        rating: enumOf(RATING_VALUES, '1 good, 0 neutral, -1 bad.'),
        created_at: dateTime,
      },
      { description: 'The stored rating.' },
    ),
  ),
});

/** POST /risk_api/rate/, the GraphQL mutation `rate` and the MCP tool rate_ip: one rating of an IP (free). */
export const rate = defineOperation({
  name: 'rate',
  path: '/risk_api/rate',
  input: rateInputSchema,
  resolve: async (input, ctx, idempotencyKey = ctx.idempotencyKey): Promise<RateResult> => {
    const written = await writeRating(ctx.services, viewerOf(ctx), input, idempotencyKey);
    const row =
      written.row ??
      (await ctx.prisma.rating.findUniqueOrThrow({ where: { id: written.id }, include: { subject: true } }));
    return { ...written, row: row as RatingRow };
  },
  output: rateResponse,
  metering: 'free',
  idempotent: { replayed: (w) => w.replayed },
  doc: {
    tag: 'Memory',
    operationId: 'rate',
    summary: 'Record quick feedback about an IP (free)',
    description: 'A good (1), neutral (0) or bad (-1) rating of an IP, with an optional note. Never counted.',
    request: { schema: 'RateRequest', example: { ip: '203.0.113.9', rating: -1, note: 'card testing' } },
    response: {
      schema: 'RateResponse',
      description: 'Stored.',
      example: {
        ok: true,
        endpoint: 'rate',
        quota: FREE,
        report: { ip: '203.0.113.9', rating: -1, created_at: '2026-11-23T10:04:00.368Z' },
      },
    },
    errors: ['idempotency_key_reused'],
  },
});
