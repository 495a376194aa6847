import type { CounterStore } from '../../platform/counters/types.ts';
import { addressKey, inWords, rateLimited, throttle } from '../throttle.ts';

/**
 * What may be sent to one address, whoever asks for it: the same message (a kind, and the thing it is
 * about: one order's approval link) at most once a minute, counted from the last one accepted (a
 * cooldown, not a clock-aligned window), and at most MAIL_PER_ADDRESS_PER_DAY messages of all kinds per
 * UTC day. Checked before the message (and anything it announces, such as a provider subscription) is created.
 */
export type MailKind = 'confirmation' | 'approval';
export const MAIL_COOLDOWN_MS = 60_000;
export const MAIL_PER_ADDRESS_PER_DAY = 10;
const DAY_MS = 86_400_000;

const WHAT: Record<MailKind, string> = { confirmation: 'A confirmation e-mail', approval: 'The approval e-mail' };

export async function admitMail(
  counters: CounterStore,
  to: string,
  kind: MailKind,
  about = '',
  nowMs = Date.now(),
): Promise<void> {
  const who = addressKey(to);
  const cool = await counters.claimCooldown(`rl:{mail:${who}}:cool:${kind}:${about}`, MAIL_COOLDOWN_MS);
  if (!cool.claimed) {
    const s = Math.ceil(cool.retryAfterMs / 1000);
    throw rateLimited(`${WHAT[kind]} was sent to this address moments ago; another can be sent in ${inWords(s)}.`, s);
  }
  await throttle(
    counters,
    `rl:{mail:${who}}:day`,
    MAIL_PER_ADDRESS_PER_DAY,
    DAY_MS,
    (s) =>
      `This address has been sent ${MAIL_PER_ADDRESS_PER_DAY} messages today, the most in one day; try again in ${inWords(s)}.`,
    nowMs,
  );
}
