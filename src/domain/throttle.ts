import { createHash } from 'node:crypto';
import type { CounterStore } from '../platform/counters/types.ts';
import { retryAfterSeconds } from '../platform/counters/keys.ts';
import { AppError } from '../errors.ts';
import { parseIp } from './network/ip.ts';

/**
 * Throttles of the control plane's abusable actions (registration, sign-in, mail, subscription requests),
 * all in the shared counter store so every process enforces one budget. A refusal is 429 rate_limited
 * with Retry-After in whole seconds.
 */

export function rateLimited(message: string, retryAfterS: number): AppError {
  return new AppError('rate_limited', message, undefined, undefined, { 'retry-after': String(retryAfterS) });
}

/** At most `limit` hits per fixed window of `windowMs` (refused hits do not count); rate_limited beyond. */
export async function throttle(
  counters: CounterStore,
  key: string,
  limit: number,
  windowMs: number,
  refusal: (retryAfterS: number) => string,
  nowMs = Date.now(),
): Promise<void> {
  const hit = await counters.hitWindow(key, limit, windowMs, nowMs);
  if (hit.allowed) return;
  const s = retryAfterSeconds(hit.resetAtMs, nowMs);
  throw rateLimited(refusal(s), s);
}

/** What a throttle keys a client on: its IPv4 address, or its IPv6 /64 (one subscriber's usual allocation). */
export function clientKey(ip: string): string {
  const parsed = parseIp(ip);
  if (!parsed.ok || parsed.version === 4) return ip;
  return `${Buffer.from(parsed.bytes.slice(0, 8)).toString('hex')}/64`;
}

/** An e-mail address as a counter key part: hashed, so the counter store holds no addresses. */
export function addressKey(email: string): string {
  return createHash('sha256').update(email).digest('hex').slice(0, 32);
}

export function inWords(seconds: number): string {
  if (seconds < 120) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return minutes < 120 ? `${minutes} minutes` : `${Math.ceil(minutes / 60)} hours`;
}
