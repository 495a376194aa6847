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
  hitWindow(key: string, limit: number, windowMs: number, nowMs: number): Promise<{ allowed: boolean; count: number; resetAtMs: number }>;
  /** Community signal: one lookup of each entity by `requester` in the 10-minute window containing nowMs:
   *  a hit counter and a distinct-requester set per (entity, window), kept 7 days after the window ends. */
  recordLookups(entityKeys: string[], requester: string, nowMs: number): Promise<void>;
  /** Per-window hits and distinct requesters of one entity, plus the distinct requesters over all the given
   *  windows together. `windowStartsMs` must be window starts (multiples of WINDOW_MS, see keys.ts). */
  readWindows(entityKey: string, windowStartsMs: number[]): Promise<{ windows: Array<{ startMs: number; hits: number; requesters: number }>; distinctRequesters: number }>;
  /** Hits of each given window of one entity (up to 7 days = 1008 windows), same order. */
  readHits(entityKey: string, windowStartsMs: number[]): Promise<number[]>;
  /** Resolves when the backend answers; rejects with CounterUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Thrown by every method when the backend can't be reached; callers decide to fail open or closed. */
export class CounterUnavailableError extends Error {
  override readonly name = 'CounterUnavailableError';
  constructor(message = 'counter store unavailable', options?: { cause?: unknown }) {
    super(message, options);
  }
}
