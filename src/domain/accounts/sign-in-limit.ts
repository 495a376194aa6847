import { createHash } from 'node:crypto';
import type { CounterStore } from '../../counters/types.ts';

/**
 * Sign-in attempts are limited per account (e-mail) and per client IP over fixed 15-minute
 * windows, in the shared counter store (so every process enforces the same budget).
 * Every attempt counts, successful or not: a guesser gains nothing from a lucky hit.
 */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_PER_ACCOUNT = 10;
export const SIGN_IN_PER_IP = 50;

export type SignInVerdict = { allowed: true } | { allowed: false; scope: 'account' | 'ip'; retryAfterS: number };

export async function admitSignIn(counters: CounterStore, email: string, ip: string, nowMs = Date.now()): Promise<SignInVerdict> {
  const who = createHash('sha256').update(email).digest('hex').slice(0, 32);
  const byIp = await counters.hitWindow(`rl:{signin:ip:${ip}}`, SIGN_IN_PER_IP, SIGN_IN_WINDOW_MS, nowMs);
  if (!byIp.allowed) return { allowed: false, scope: 'ip', retryAfterS: Math.ceil((byIp.resetAtMs - nowMs) / 1000) };
  const byAccount = await counters.hitWindow(`rl:{signin:acct:${who}}`, SIGN_IN_PER_ACCOUNT, SIGN_IN_WINDOW_MS, nowMs);
  if (!byAccount.allowed) return { allowed: false, scope: 'account', retryAfterS: Math.ceil((byAccount.resetAtMs - nowMs) / 1000) };
  return { allowed: true };
}
