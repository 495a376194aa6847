import type { CounterStore } from '../../platform/counters/types.ts';
import { retryAfterSeconds } from '../../platform/counters/keys.ts';
import { addressKey, clientKey } from '../throttle.ts';

/**
 * Sign-in attempts over fixed 15-minute windows, in the shared counter store (every process enforces
 * the same budget), checked in this order:
 *   per client (IPv4 address or IPv6 /64), whatever the account     SIGN_IN_PER_IP
 *   per (account, client): a guesser locks out only itself           SIGN_IN_PER_ACCOUNT_AND_IP
 *   per account from all clients together, a higher ceiling          SIGN_IN_PER_ACCOUNT
 * so wrong passwords from one place no longer lock the owner out elsewhere; only a spread attack from
 * many addresses reaches the account-wide ceiling. Every attempt counts, successful or not (a guesser
 * gains nothing from a lucky hit); a refused one counts only in the budgets checked before the one that
 * refused it, so one client adds at most SIGN_IN_PER_ACCOUNT_AND_IP to an account's ceiling per window
 * (reaching it takes ten clients). "Account" is the e-mail typed, whether or not it has an account, so
 * a refusal tells nothing about which addresses exist.
 */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_PER_IP = 50;
export const SIGN_IN_PER_ACCOUNT_AND_IP = 10;
export const SIGN_IN_PER_ACCOUNT = 100;

export type SignInScope = 'ip' | 'account_ip' | 'account';
export type SignInVerdict = { allowed: true } | { allowed: false; scope: SignInScope; retryAfterS: number };

export async function admitSignIn(
  counters: CounterStore,
  email: string,
  ip: string,
  nowMs = Date.now(),
): Promise<SignInVerdict> {
  const who = addressKey(email);
  const from = clientKey(ip);
  const budgets: Array<[SignInScope, string, number]> = [
    ['ip', `rl:{signin:ip:${from}}`, SIGN_IN_PER_IP],
    ['account_ip', `rl:{signin:acct:${who}}:ip:${from}`, SIGN_IN_PER_ACCOUNT_AND_IP],
    ['account', `rl:{signin:acct:${who}}`, SIGN_IN_PER_ACCOUNT],
  ];
  for (const [scope, key, limit] of budgets) {
    const hit = await counters.hitWindow(key, limit, SIGN_IN_WINDOW_MS, nowMs);
    if (!hit.allowed) return { allowed: false, scope, retryAfterS: retryAfterSeconds(hit.resetAtMs, nowMs) };
  }
  return { allowed: true };
}
