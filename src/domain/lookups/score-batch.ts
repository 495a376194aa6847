import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { typeError } from '../memory/schemas.ts';
import { parseIp } from '../network/ip.ts';
import { readScoreSignal } from '../community/networks.ts';
import type { Viewer } from '../access/verifier.ts';
import type { MeteredSurface, QuotaPosture } from '../metering/meter.ts';
import type { ApiSurface } from '../../platform/metrics.ts';
import { refused, scoreAnswer, type ScoreDeps, type ScoreOutcome } from './score-call.ts';

/** The most IPs one batch may carry (the bound; a tier's burst limit may allow fewer, see scoreBatchRequest). */
export const MAX_BATCH_IPS = 100;

/** The code of a per-item error in a batch answer: the item was not an IP address, and was not counted. */
export const INVALID_IP = 'invalid_ip';

/** One requested IP as sent (`input`), and its canonical form, or why it is not an address. */
export type BatchIp = { input: string; ip: string; reason?: undefined } | { input: string; ip: null; reason: string };

export type ScoreBatchItem = {
  input: string;
  score: ScoreOutcome | null;
  error: { code: typeof INVALID_IP; message: string } | null;
};
export type ScoreBatchOutcome = {
  apiKey: { name: string; prefix: string };
  quota: QuotaPosture;
  results: ScoreBatchItem[];
};

/**
 * The body of a batch (REST, MCP) and the arguments of GraphQL's scoreBatch: 1 to MAX_BATCH_IPS strings. A string
 * that is not an IP is an item's own error, answered in place; anything else wrong refuses the whole request.
 */
export const scoreBatchInputSchema = z.strictObject(
  {
    ips: z
      .array(z.string({ error: typeError('a string') }), { error: typeError('an array of strings') })
      .min(1, `must hold 1 to ${MAX_BATCH_IPS} IPs`)
      .max(MAX_BATCH_IPS, `must hold 1 to ${MAX_BATCH_IPS} IPs`)
      .transform((ips) => parseBatchIps(ips))
      .meta({
        description: `1 to ${MAX_BATCH_IPS} IPv4 or IPv6 addresses, answered in this order; a repeated address (after canonicalisation) is scored and counted once.`,
      }),
  },
  { error: typeError('a JSON object') },
);

/** Each requested string parsed once, in request order (each transport checks the list's length itself). */
export function parseBatchIps(ips: readonly string[]): BatchIp[] {
  return ips.map((input) => {
    const parsed = parseIp(input);
    return parsed.ok ? { input, ip: parsed.canonical } : { input, ip: null, reason: parsed.reason };
  });
}

/**
 * A metered batch of score calls, the same for REST, GraphQL and the MCP tool `score_ips`:
 * eligibility → the batch's size against the key's burst limit (a batch of more distinct IPs than the tier's
 * burst_per_second can never pass it: refused as 400, not a 429 to retry) → ONE atomic reservation of one unit
 * per distinct valid IP on the burst window and the daily quota (all or nothing: a refusal counts nothing) →
 * only then the work: each distinct IP scored once from ONE publication snapshot, with its community signal and
 * the workspace's memory, and recorded as one lookup, as a single call would be
 * (docs/decisions/0019-batch-quota-and-burst.md). Invalid items are answered in place and never counted.
 */
export async function scoreBatchRequest(
  input: {
    ips: readonly BatchIp[];
    viewer: Viewer;
    requester: string;
    surface?: MeteredSurface | undefined;
    via: ApiSurface;
  },
  deps: ScoreDeps,
): Promise<ScoreBatchOutcome> {
  const { viewer, surface = 'api_score' } = input;
  const tier = deps.tiers.get(viewer.tier);
  const nowMs = deps.meter.admit(tier, surface);
  const distinct = [...new Set(input.ips.flatMap((item) => (item.ip === null ? [] : [item.ip])))];
  if (distinct.length > tier.burstPerSecond) {
    throw new AppError(
      'invalid_request',
      `This batch has ${distinct.length} distinct valid IPs, more than the ${tier.burstPerSecond} per second your tier's burst limit allows, so it could never be counted; send at most ${tier.burstPerSecond} per batch.`,
      [
        {
          field: 'ips',
          message: `must hold at most ${tier.burstPerSecond} distinct valid IPs (the tier's burst_per_second)`,
        },
      ],
    );
  }
  const quota =
    distinct.length === 0
      ? await deps.meter.peek(viewer.workspaceId, tier, surface)
      : await deps.meter
          .consume(viewer, tier, nowMs, surface, distinct.length)
          .catch((e: unknown) => refused(e, viewer, input.via, deps));
  const snapshot = deps.publications.current();
  // Every IP's signal reads are issued in this one tick, so with Redis they leave in one pipeline.
  const scored = await Promise.all(
    distinct.map(async (ip): Promise<[string, ScoreOutcome]> => {
      const hierarchy = deps.network.resolve(ip);
      const answer = scoreAnswer(ip, hierarchy, viewer, snapshot, deps, nowMs);
      const communitySignal = await readScoreSignal(deps.community, hierarchy, nowMs);
      // Counted: a failure to record the lookup must not fail the batch (CommunitySignals logs it).
      void deps.community.record(hierarchy, input.requester, nowMs);
      return [ip, { ...answer, quota, communitySignal }];
    }),
  );
  for (let i = 0; i < distinct.length; i++) deps.observeScore?.scoreCounted(viewer.tier, input.via);
  const byIp = new Map(scored);
  return {
    apiKey: { name: viewer.keyName, prefix: viewer.keyPrefix },
    quota,
    results: input.ips.map((item) =>
      item.ip === null
        ? {
            input: item.input,
            score: null,
            error: { code: INVALID_IP, message: `The item ${item.reason}; it was not counted.` },
          }
        : { input: item.input, score: byIp.get(item.ip)!, error: null },
    ),
  };
}
