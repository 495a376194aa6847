import { AppError } from '../../errors.ts';
import type { CounterStore } from '../../platform/counters/types.ts';
import { CounterUnavailableError } from '../../platform/counters/types.ts';
import {
  burstKey,
  keyQuotaKey,
  nextUtcMidnightMs,
  quotaKey,
  retryAfterSeconds,
  utcDay,
  type QuotaSurface,
} from '../../platform/counters/keys.ts';
import type { Viewer } from '../access/verifier.ts';
import { requireScoreEligible, type Tier } from './tiers.ts';

/**
 * The daily `score` quotas and the per-key burst limit.
 *
 * - Window: one UTC day; the count resets at 00:00 UTC. Each metered surface has its own counter and its own
 *   limit in the tier: `api_score` (REST and /graphql) and `agent_score` (the MCP tool `score_ip`), both separate
 *   from the direct-report quota (`direct_report`). Eligibility and the key's burst limit are shared.
 * - Only a successful call counts: the score is computed first, then one atomic step checks
 *   the burst limit and "increments if below the limit"; a refused call leaves every count unchanged.
 * - A batch (score_batch, score_ips) costs one unit per distinct valid IP on both the quota and the burst window,
 *   reserved all or nothing before any IP is scored (docs/decisions/0019-batch-quota-and-burst.md).
 * - `remaining = max(0, daily_limit - used_today)`; `over_limit` is true when no call is
 *   left today (remaining = 0): the next `score` is refused until the reset.
 * - Burst: at most `burst_per_second` calls per key per clock second (own 429 code), checked in the
 *   same atomic step as the quota (its counter shares the workspace's hash tag).
 * - Counter store unreachable: fail closed (503 quota_unavailable); a metered call is never free.
 * Counters are kept 35 days past their day so the usage chart can read 30 days back; each counted call also
 * counts on its key's own counter of the day (limiting nothing), for the usage page's per-key breakdown.
 */
export type QuotaState = { dailyLimit: number; usedToday: number; remaining: number; overLimit: boolean };
/** A quota after a call or a read: its state, the next reset (ISO) and the seconds until it (Retry-After, RateLimit-Reset). */
export type QuotaPosture = QuotaState & { resetsAt: string; retryAfterSeconds: number };
const HISTORY_MS = 35 * 86_400_000;

/** Each daily quota's limit in a tier, by its counter's name: one subscription grants all three. */
const LIMIT: Record<QuotaSurface, (t: Tier) => number> = {
  api_score: (t) => t.dailyLimit,
  direct_report: (t) => t.directReportLimit,
  agent_score: (t) => t.agentDailyLimit,
};
/** The surfaces a `score` call can be counted on, as messages name them. */
const METERED = {
  api_score: { quota: 'daily score quota', call: 'score' },
  agent_score: { quota: 'daily agent (MCP) quota', call: 'score_ip' },
} as const;
export type MeteredSurface = keyof typeof METERED;

export function quotaState(limit: number, used: number): QuotaState {
  const remaining = Math.max(0, limit - used);
  return { dailyLimit: limit, usedToday: used, remaining, overLimit: remaining === 0 };
}

/** A quota as answered on the wire (REST bodies, error details, agent tools): the specification's snake_case names. */
export function quotaAnswer(q: QuotaState) {
  return { daily_limit: q.dailyLimit, used_today: q.usedToday, remaining: q.remaining, over_limit: q.overLimit };
}

/** The ISO text of the last reset instant formatted: every call of a day has the same one. */
let resetText = { ms: NaN, iso: '' };
function resetIso(resetMs: number): string {
  if (resetText.ms !== resetMs) resetText = { ms: resetMs, iso: new Date(resetMs).toISOString() };
  return resetText.iso;
}

function posture(limit: number, used: number, nowMs: number): QuotaPosture {
  const reset = nextUtcMidnightMs(nowMs);
  return { ...quotaState(limit, used), resetsAt: resetIso(reset), retryAfterSeconds: retryAfterSeconds(reset, nowMs) };
}

/** Standard RateLimit-* headers (draft-ietf-httpapi-ratelimit-headers) for the daily quota. */
export function rateLimitHeaders(
  q: Pick<QuotaPosture, 'dailyLimit' | 'remaining' | 'retryAfterSeconds'>,
): Record<string, string> {
  return {
    'ratelimit-limit': String(q.dailyLimit),
    'ratelimit-remaining': String(q.remaining),
    'ratelimit-reset': String(q.retryAfterSeconds),
    'ratelimit-policy': `${q.dailyLimit};w=86400`,
  };
}

const unavailable = () =>
  new AppError(
    'quota_unavailable',
    'The quota service is unreachable, so score is refused rather than served unmetered. rate and report still work; retry shortly.',
    undefined,
    undefined,
    { 'retry-after': '5' },
  );

async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw e instanceof CounterUnavailableError ? unavailable() : e;
  }
}

export class ScoreMeter {
  constructor(
    private readonly counters: CounterStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Eligibility, before any work is done; returns the call's clock reading. Needs no counter. */
  admit(tier: Tier, surface: MeteredSurface = 'api_score'): number {
    requireScoreEligible(tier, METERED[surface].call);
    return this.now();
  }

  /**
   * After the score is computed: the key's burst limit, then the daily quota, in ONE atomic counter call (one
   * round trip). Counts the call, or refuses it with 429 rate_limited (burst) or quota_exceeded; a refusal counts
   * nothing. `units` is what the call costs on both counters: 1 for a score call, the distinct valid IPs of a
   * batch, reserved before its work (scoreBatchRequest); all of them count, or none.
   */
  async consume(
    viewer: Viewer,
    tier: Tier,
    nowMs: number,
    surface: MeteredSurface = 'api_score',
    units = 1,
  ): Promise<QuotaPosture> {
    const workspace = String(viewer.workspaceId);
    const limit = LIMIT[surface](tier);
    const day = utcDay(nowMs);
    const result = await guard(() =>
      this.counters.meterCall({
        quotaKey: quotaKey(workspace, surface, day),
        dailyLimit: limit,
        quotaExpireAtMs: nextUtcMidnightMs(nowMs) + HISTORY_MS,
        keyCountKey: keyQuotaKey(workspace, surface, day, viewer.keyPrefix),
        burstKey: burstKey(workspace, viewer.keyPrefix),
        burstLimit: tier.burstPerSecond,
        burstWindowMs: 1000,
        nowMs,
        units,
      }),
    );
    const quota = posture(limit, result.used, nowMs);
    const batch = units === 1 ? '' : `This batch of ${units} IPs counts as ${units} calls, and not enough are left`;
    if (result.outcome === 'burst_limited') {
      const retry = retryAfterSeconds(result.burstResetAtMs, nowMs);
      const message = batch
        ? `${batch} in this second's burst limit of ${tier.burstPerSecond} per key; retry after the second ends (this is not the daily quota).`
        : `More than ${tier.burstPerSecond} score calls per second with this key; slow down (this is not the daily quota).`;
      throw new AppError(
        'rate_limited',
        message,
        undefined,
        { burst: { limit: tier.burstPerSecond, window_s: 1 } },
        { ...rateLimitHeaders(quota), 'retry-after': String(retry) },
      );
    }
    if (result.outcome === 'quota_exhausted') {
      // The reset instant travels in the body too: an agent host sees the tool result, not the Retry-After header.
      const message = batch
        ? `${batch} today (${quota.remaining} of the ${METERED[surface].quota} of ${limit}); nothing was counted. It resets at ${quota.resetsAt} (00:00 UTC); send fewer IPs or upgrade the tier.`
        : `The ${METERED[surface].quota} of ${limit} calls is used up; it resets at ${quota.resetsAt} (00:00 UTC). Upgrade the tier for more.`;
      throw new AppError(
        'quota_exceeded',
        message,
        undefined,
        { quota: { ...quotaAnswer(quota), resets_at: quota.resetsAt } },
        { 'retry-after': String(quota.retryAfterSeconds), ...rateLimitHeaders(quota) },
      );
    }
    return quota;
  }

  /**
   * One direct report page view (control plane): counted when below the tier's daily limit, in one atomic
   * step; a refused view counts nothing. Not burst-limited: a signed-in person opens pages one at a time.
   */
  async consumeReportPage(workspaceId: number, tier: Tier): Promise<{ counted: boolean; used: number }> {
    const nowMs = this.now();
    return guard(() =>
      this.counters.consumeIfBelow(
        quotaKey(String(workspaceId), 'direct_report', utcDay(nowMs)),
        tier.directReportLimit,
        nextUtcMidnightMs(nowMs) + HISTORY_MS,
      ),
    );
  }

  /** Today's posture of one quota without counting. */
  async peek(workspaceId: number, tier: Tier, surface: QuotaSurface = 'api_score'): Promise<QuotaPosture> {
    const nowMs = this.now();
    const used = await guard(() => this.counters.peek(quotaKey(String(workspaceId), surface, utcDay(nowMs))));
    return posture(LIMIT[surface](tier), used, nowMs);
  }

  /** Today's posture of all three quotas, read in one counter call (the agent's get_quota). */
  async today(workspaceId: number, tier: Tier): Promise<Record<QuotaSurface, QuotaPosture>> {
    const nowMs = this.now();
    const surfaces = Object.keys(LIMIT) as QuotaSurface[];
    const used = await guard(() =>
      this.counters.peekMany(surfaces.map((s) => quotaKey(String(workspaceId), s, utcDay(nowMs)))),
    );
    return Object.fromEntries(surfaces.map((s, i) => [s, posture(LIMIT[s](tier), used[i] ?? 0, nowMs)])) as Record<
      QuotaSurface,
      QuotaPosture
    >;
  }
}
