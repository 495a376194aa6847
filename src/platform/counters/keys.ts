/**
 * Key builders and time arithmetic shared by the counter store and its callers.
 * Every key carries a Redis Cluster hash tag ({...}) naming the thing the key belongs to, so all keys one
 * script touches hash to the same slot (see the layout comment at the top of redis.ts).
 */
import type { ActivityRange } from './types.ts';

/** Community-signal windows are 10 minutes, aligned to 10-minute UTC boundaries. */
export const WINDOW_MS = 10 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** A window's counters live until 7 days after the window ends, so a 7-day look-back always finds them. */
export const COMMUNITY_RETENTION_MS = 7 * DAY_MS + WINDOW_MS;

export type QuotaSurface = 'api_score' | 'direct_report' | 'agent_score';

/** Daily quota counter of one workspace on one access surface, e.g. `rq:{ws:42}:api_score:20260617`. */
export function quotaKey(workspaceId: string, surface: QuotaSurface, dayUtc: string): string {
  return `rq:{ws:${workspaceId}}:${surface}:${dayUtc}`;
}

/** One API key's own count of a day's calls on a surface, counted with the quota and limiting nothing (the
 *  usage page's per-key breakdown), e.g. `rq:{ws:42}:api_score:20260617:k:rk_AbCdEfGh`. Same hash tag. */
export function keyQuotaKey(workspaceId: string, surface: QuotaSurface, dayUtc: string, apiKeyPrefix: string): string {
  return `${quotaKey(workspaceId, surface, dayUtc)}:k:${apiKeyPrefix}`;
}

/** Burst-limit counter of one API key (identified by its public prefix); the store appends the window. It
 *  carries its workspace's hash tag, like the quota key, so one script checks both in one step. */
export function burstKey(workspaceId: string, apiKeyPrefix: string): string {
  return `rl:{ws:${workspaceId}}:k:${apiKeyPrefix}`;
}

/** Start of the 10-minute window containing nowMs. */
export function windowStart(nowMs: number): number {
  return Math.floor(nowMs / WINDOW_MS) * WINDOW_MS;
}

/** Expiry instant of the community counters of the window starting at `startMs`. */
export function communityExpireAtMs(startMs: number): number {
  return startMs + COMMUNITY_RETENTION_MS;
}

/** Both stores refuse misaligned window starts: such a key can never exist, and a silent 0 hides the bug. */
export function assertWindowStarts(windowStartsMs: readonly number[]): void {
  for (const s of windowStartsMs) {
    if (!Number.isSafeInteger(s) || s % WINDOW_MS !== 0) {
      throw new RangeError(`not a 10-minute window start: ${s}`);
    }
  }
}

/** A community read's bounds: all window starts, the span not reversed, the recent windows inside it. */
export function assertActivityRange(range: ActivityRange): void {
  assertWindowStarts([range.sinceMs, range.untilMs, ...range.recentStartsMs]);
  if (range.sinceMs > range.untilMs)
    throw new RangeError(`reversed activity range: ${range.sinceMs} > ${range.untilMs}`);
  for (const s of range.recentStartsMs) {
    if (s < range.sinceMs || s >= range.untilMs)
      throw new RangeError(`recent window ${s} outside [${range.sinceMs}, ${range.untilMs})`);
  }
}

/** UTC calendar day of nowMs as 'YYYYMMDD'. */
export function utcDay(nowMs: number): string {
  const d = new Date(nowMs);
  const y = d.getUTCFullYear().toString().padStart(4, '0');
  const m = (d.getUTCMonth() + 1).toString().padStart(2, '0');
  const day = d.getUTCDate().toString().padStart(2, '0');
  return `${y}${m}${day}`;
}

/** The next UTC midnight strictly after nowMs: when today's quota resets. */
export function nextUtcMidnightMs(nowMs: number): number {
  return Math.floor(nowMs / DAY_MS) * DAY_MS + DAY_MS;
}

/** A Retry-After in whole seconds until a counter window resets at `resetAtMs`: at least 1, never "retry now". */
export function retryAfterSeconds(resetAtMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000));
}

/** Redis Cluster hash tag of a key (the whole key when it has none), used to group multi-key reads by slot. */
export function hashTag(key: string): string {
  const open = key.indexOf('{');
  if (open === -1) return key;
  const close = key.indexOf('}', open + 1);
  if (close === -1 || close === open + 1) return key;
  return key.slice(open + 1, close);
}
