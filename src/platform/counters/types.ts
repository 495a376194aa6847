/**
 * The counter store: daily quota, burst rate limit and community-signal windows.
 * Two implementations share this contract (redis.ts for multi-process deployments, embedded.ts for a
 * single self-hosted process); test/unit/counters-contract.test.ts runs the same suite against both.
 */
export interface CounterStore {
  /** Daily quota: atomically increment `key` by 1 only if the current value is < limit; the key expires at
   *  `expireAtMs`, set in the same atomic step. Returns the value after the call and whether it was counted. */
  consumeIfBelow(key: string, limit: number, expireAtMs: number): Promise<{ counted: boolean; used: number }>;
  /** Current value of a quota counter (0 when absent or expired). */
  peek(key: string): Promise<number>;
  /** Many quota counters at once (e.g. a 30-day usage chart): values in the same order, 0 when absent. */
  peekMany(keys: string[]): Promise<number[]>;
  /** Burst limit: fixed window of `windowMs` ending at the next multiple of windowMs. Allowed when the count
   *  after the increment is <= limit; rejected hits do not count (a client that backs off recovers at the next
   *  window), and then `count` is the stored count of the window. Atomic. */
  hitWindow(
    key: string,
    limit: number,
    windowMs: number,
    nowMs: number,
  ): Promise<{ allowed: boolean; count: number; resetAtMs: number }>;
  /** Cooldown: claims `key` for `ttlMs` when nobody holds it, in one atomic step (Redis SET NX PX). A refused
   *  claim changes nothing and answers how long the current claim still lasts (at least 1 ms), so "once per
   *  ttlMs" holds exactly, counted from the claim that succeeded, not from a clock-aligned window. */
  claimCooldown(key: string, ttlMs: number): Promise<{ claimed: boolean; retryAfterMs: number }>;
  /** A metered call of `units` (default 1) in ONE atomic step, all or nothing: it is counted only when the burst
   *  window of `burstKey` (fixed windows, as hitWindow) still holds `units` AND the daily quota at `quotaKey` does
   *  (`used + units <= dailyLimit`); then both advance by `units`, and so does `keyCountKey` (same expiry as the
   *  quota, set in the same step; it limits nothing). A refusal by either limit changes no counter; the burst
   *  limit is judged first. `used` is the quota's value after the call, counted or not (so a refusal can still
   *  report the day's posture). All keys must share a hash tag (one Redis slot). */
  meterCall(call: MeterCall): Promise<MeterResult>;
  /** Community signal: one lookup of each entity by `requester` in the 10-minute window containing nowMs:
   *  a hit counter and a distinct-requester set per (entity, window), kept 7 days after the window ends. */
  recordLookups(entityKeys: string[], requester: string, nowMs: number): Promise<void>;
  /** Many lookups at once, tallied per (entity, window) by the caller: each adds `hits` to the window's hit
   *  counter and its `requesters` to the window's distinct-requester set, with the same retention as
   *  recordLookups (counted from nowMs, the time of sending). recordLookups is the one-lookup form of this. */
  recordLookupBatch(tallies: readonly LookupTally[], nowMs: number): Promise<void>;
  /** One entity's lookup activity, read in ONE atomic step (so hits and requesters always agree):
   *  `active` = the windows in [sinceMs, untilMs) that had lookups, ascending (windows without lookups are left
   *  out, so an entity never looked up costs nothing to read), `recent` = hits and distinct requesters of each of
   *  `recentStartsMs` in order, `distinctRequesters` = distinct requesters over the recent windows together.
   *  Every bound must be a window start (a multiple of WINDOW_MS, see keys.ts). */
  readActivity(entityKey: string, range: ActivityRange): Promise<Activity>;
  /** A counter brought from another store (`db move`): sets `key` to `value` until `expireAtMs` if it does not exist
   *  yet, in one atomic step; false, and nothing changed, when it does. */
  seedCounter(key: string, value: number, expireAtMs: number): Promise<boolean>;
  /** Resolves when the backend answers; rejects with CounterUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type MeterCall = {
  quotaKey: string;
  dailyLimit: number;
  quotaExpireAtMs: number;
  /** The calling key's own count of the day (keys.ts keyQuotaKey), read by peek/peekMany like a quota. */
  keyCountKey: string;
  burstKey: string;
  burstLimit: number;
  burstWindowMs: number;
  nowMs: number;
  /** What the call costs on both counters: 1 for a score call, the distinct valid IPs of a batch. A positive integer. */
  units?: number;
};
export type MeterResult = {
  outcome: 'counted' | 'burst_limited' | 'quota_exhausted';
  used: number;
  burstResetAtMs: number;
};

export type LookupTally = { entity: string; windowStartMs: number; hits: number; requesters: readonly string[] };

export type ActivityRange = { sinceMs: number; untilMs: number; recentStartsMs: readonly number[] };
export type Activity = {
  active: Array<{ startMs: number; hits: number }>;
  recent: Array<{ startMs: number; hits: number; requesters: number }>;
  distinctRequesters: number;
};

/** Thrown by every method when the backend can't be reached; callers decide to fail open or closed. */
export class CounterUnavailableError extends Error {
  override readonly name = 'CounterUnavailableError';
  constructor(message = 'counter store unavailable', options?: { cause?: unknown }) {
    super(message, options);
  }
}
