import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { CounterStore } from '../../platform/counters/types.ts';
import type { Mailer } from '../mail/outbox.ts';
import { admitMail } from '../mail/mail-limit.ts';
import { clientKey, inWords, rateLimited, throttle } from '../throttle.ts';
import { AppError } from '../../errors.ts';
import { checkPassword, isAccountEmail, normalizeEmail, type AccountView } from './accounts.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { admitSignIn } from './sign-in-limit.ts';
import { CONFIRMATION_TTL_MS, consumeConfirmation, findConfirmation, issueConfirmation } from './email-confirmation.ts';
import { alreadyRegisteredMail, confirmAddressMail, registrationMail } from './account-mail.ts';

/**
 * Registration with a confirmed address. The form's answer is the same whether or not the address has
 * an account (nothing tells a stranger which addresses are registered); the difference is only in the
 * mail, which only the address's owner reads:
 *   new address       a link that creates the account (with the password chosen now) when used
 *   existing address  a notice that someone tried, with a confirmation link if the address is unconfirmed
 * No account exists before its link is used with its password (confirmAddress), so nobody can hold an
 * account at an address they cannot read, nor make its owner adopt a password they chose. Throttled per
 * client (REGISTRATIONS_PER_CLIENT an hour) and per address (mail-limit.ts); refusals are 429
 * rate_limited, the same for either kind of address.
 */
export type RegistrationDeps = { prisma: PrismaClient; counters: CounterStore; mailer: Mailer; baseUrl: string };
export const REGISTRATIONS_PER_CLIENT = 10;
const HOUR_MS = 3_600_000;

export type RegisterResult = { ok: true; email: string } | { ok: false; field: 'email' | 'password'; message: string };

export async function register(
  deps: RegistrationDeps,
  emailInput: string,
  password: string,
  ip: string,
  nowMs = Date.now(),
): Promise<RegisterResult> {
  const email = normalizeEmail(emailInput);
  if (!isAccountEmail(email)) return { ok: false, field: 'email', message: 'Enter a valid e-mail address.' };
  const weak = checkPassword(password);
  if (weak) return { ok: false, field: 'password', message: weak };
  await throttle(
    deps.counters,
    `rl:{register:ip:${clientKey(ip)}}`,
    REGISTRATIONS_PER_CLIENT,
    HOUR_MS,
    (s) => `Too many registrations from your network address; try again in ${inWords(s)}.`,
    nowMs,
  );
  await admitMail(deps.counters, email, 'confirmation', '', nowMs);
  // Hashed whether or not the address has an account, so both answers take the same time.
  const passwordHash = await hashPassword(password);
  const existing = await deps.prisma.account.findUnique({ where: { email } });
  if (existing) {
    const token = existing.emailVerifiedAt ? null : await issueConfirmation(deps.prisma, email, null, nowMs);
    await deps.mailer.enqueue(alreadyRegisteredMail(email, deps.baseUrl, token, CONFIRMATION_TTL_MS));
  } else {
    const token = await issueConfirmation(deps.prisma, email, passwordHash, nowMs);
    await deps.mailer.enqueue(registrationMail(email, deps.baseUrl, token, CONFIRMATION_TTL_MS));
  }
  return { ok: true, email };
}

/** A signed-in account with an unconfirmed address (made before confirmation existed) asks for its link. */
export async function sendAddressConfirmation(
  deps: RegistrationDeps,
  account: AccountView,
  nowMs = Date.now(),
): Promise<void> {
  if (account.emailVerified) throw new AppError('invalid_request', 'This e-mail address is confirmed already.');
  await admitMail(deps.counters, account.email, 'confirmation', '', nowMs);
  const token = await issueConfirmation(deps.prisma, account.email, null, nowMs);
  await deps.mailer.enqueue(confirmAddressMail(account.email, deps.baseUrl, token, CONFIRMATION_TTL_MS));
}

/**
 * Using a link takes the account's password too (the one chosen at registration, or the existing
 * account's), so neither a link alone nor a password alone confirms anything: a link someone else
 * registered with your address is useless to you and to them. Attempts count as sign-in attempts
 * (sign-in-limit.ts). created / confirmed: done, sign the account in; exists: a registration link for an
 * address that has an account by now (nothing changed); wrong_password: the link stays usable; invalid:
 * unknown, used or expired.
 */
export type Confirmation =
  | { outcome: 'created' | 'confirmed'; accountId: number }
  | { outcome: 'exists' | 'wrong_password' | 'invalid' };

export async function confirmAddress(
  deps: Pick<RegistrationDeps, 'prisma' | 'counters'>,
  token: string,
  password: string,
  ip: string,
  nowMs = Date.now(),
): Promise<Confirmation> {
  const { prisma } = deps;
  const link = await findConfirmation(prisma, token, nowMs);
  if (!link) return { outcome: 'invalid' };
  const verdict = await admitSignIn(deps.counters, link.email, ip, nowMs);
  if (!verdict.allowed)
    throw rateLimited(
      `Too many attempts for this address. Try again in ${inWords(verdict.retryAfterS)}.`,
      verdict.retryAfterS,
    );
  const account = await prisma.account.findUnique({ where: { email: link.email } });
  if (account && link.passwordHash !== null) return { outcome: 'exists' }; // a registration link never touches an existing account
  if (!account && link.passwordHash === null) return { outcome: 'invalid' }; // the account it was for is gone
  if (!(await verifyPassword(password, link.passwordHash ?? account!.passwordHash)).ok)
    return { outcome: 'wrong_password' };
  const now = new Date(nowMs);
  try {
    const done = await consumeConfirmation(prisma, link, async (tx): Promise<Confirmation> => {
      if (account) {
        await tx.account.update({
          where: { id: account.id },
          data: { emailVerifiedAt: account.emailVerifiedAt ?? now },
        });
        return { outcome: 'confirmed', accountId: account.id };
      }
      const workspace = await tx.workspace.create({ data: { name: workspaceName(link.email) } });
      const created = await tx.account.create({
        data: { email: link.email, passwordHash: link.passwordHash, workspaceId: workspace.id, emailVerifiedAt: now },
      });
      return { outcome: 'created', accountId: created.id };
    });
    return done ?? { outcome: 'invalid' };
  } catch (e) {
    // Two registration links of one address used at the same moment: the other one created the account.
    if ((e as { code?: string }).code === 'P2002') return { outcome: 'exists' };
    throw e;
  }
}

/** Workspace names are public-ish labels; a random suffix keeps them unique without revealing other accounts. */
function workspaceName(email: string): string {
  const label =
    email
      .split('@')[0]!
      .replace(/[^A-Za-z0-9_.-]/g, '')
      .slice(0, 40) || 'workspace';
  return `${label}-${randomBytes(4).toString('hex')}`;
}
