/**
 * Which 10-minute windows a community snapshot reads. Only COMPLETE windows count: the window containing
 * nowMs is still being filled, so reading it would make the answer drift within the window and differ
 * between processes. Everything here is a pure function of windowStart(nowMs).
 */
import { windowStart, WINDOW_MS } from '../../platform/counters/keys.ts';

/** Windows shown in recent_query_windows and summed into requesters_60m: one hour. */
export const RECENT_WINDOWS = 6;
/** Windows examined for spike_windows_7d: 7 days × 144 windows a day. */
export const WEEK_WINDOWS = 7 * 24 * ((60 * 60 * 1000) / WINDOW_MS);

/** Starts of the last `count` complete windows before the one containing nowMs, oldest first. */
export function completeWindowStarts(nowMs: number, count: number): number[] {
  const current = windowStart(nowMs);
  return Array.from({ length: count }, (_, i) => current - (count - i) * WINDOW_MS);
}

/** "HH:MM" in UTC of a window start, e.g. 23:50 then 00:00 across midnight. */
export function windowLabel(startMs: number): string {
  const d = new Date(startMs);
  return `${d.getUTCHours().toString().padStart(2, '0')}:${d.getUTCMinutes().toString().padStart(2, '0')}`;
}
