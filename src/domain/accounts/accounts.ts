import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { hashPassword, verifyPassword } from './password.ts';

/** Registration and credential checks of control-plane accounts. */

export type AccountView = { id: number; email: string; workspaceId: number; workspaceName: string; tier: string };

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;
// No control characters anywhere (\s does not cover NUL or DEL; PostgreSQL refuses NUL in text).
const EMAIL = /^[^\s@<>()[\]\\,;:"\u0000-\u001f\u007f]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)+$/;

export type RegisterResult = { ok: true; account: AccountView } | { ok: false; field: 'email' | 'password'; message: string };

/** Lower-cased and trimmed: one account per mailbox, however it is typed. */
export function normalizeEmail(input: string): string { return input.trim().toLowerCase(); }

/** The addresses an account may have (after normalizeEmail). */
function isAccountEmail(email: string): boolean {
  return email.length <= 254 && EMAIL.test(email);
}

export function checkPassword(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `The password must have at least ${PASSWORD_MIN} characters.`;
  if (length > PASSWORD_MAX) return `The password may have at most ${PASSWORD_MAX} characters.`;
  return null;
}

/** Creates the account and its own workspace (tier free) together. */
export async function registerAccount(prisma: PrismaClient, emailInput: string, password: string): Promise<RegisterResult> {
  const email = normalizeEmail(emailInput);
  if (!isAccountEmail(email)) return { ok: false, field: 'email', message: 'Enter a valid e-mail address.' };
  const weak = checkPassword(password);
  if (weak) return { ok: false, field: 'password', message: weak };
  if (await prisma.account.findUnique({ where: { email } })) {
    return { ok: false, field: 'email', message: 'An account with this e-mail address exists; sign in instead.' };
  }
  const passwordHash = await hashPassword(password);
  // Workspace names are public-ish labels; a random suffix keeps them unique without revealing other accounts.
  const label = email.split('@')[0]!.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 40) || 'workspace';
  const workspaceName = `${label}-${randomBytes(4).toString('hex')}`;
  try {
    const account = await prisma.$transaction(async (tx) => {
      const workspace = await tx.workspace.create({ data: { name: workspaceName } });
      return tx.account.create({ data: { email, passwordHash, workspaceId: workspace.id }, include: { workspace: true } });
    });
    return { ok: true, account: view(account) };
  } catch (e) {
    if ((e as { code?: string }).code === 'P2002') return { ok: false, field: 'email', message: 'An account with this e-mail address exists; sign in instead.' };
    throw e;
  }
}

/** The account when the password matches; null otherwise (unknown e-mail and wrong password look the same). */
export async function checkCredentials(prisma: PrismaClient, emailInput: string, password: string): Promise<AccountView | null> {
  const email = normalizeEmail(emailInput);
  // Registration accepts only well-formed addresses, so nothing else can be an account; and PostgreSQL refuses
  // some text outright (NUL: an error, not "no rows"). Not looked up, but hashed all the same: no timing tell.
  const account = isAccountEmail(email) ? await prisma.account.findUnique({ where: { email }, include: { workspace: true } }) : null;
  const ok = await verifyPassword(password, account?.passwordHash ?? null);
  return ok && account ? view(account) : null;
}

export async function loadAccount(prisma: PrismaClient, id: number): Promise<AccountView | null> {
  const account = await prisma.account.findUnique({ where: { id }, include: { workspace: true } });
  return account ? view(account) : null;
}

function view(a: { id: number; email: string; workspaceId: number; workspace: { name: string; tier: string } }): AccountView {
  return { id: a.id, email: a.email, workspaceId: a.workspaceId, workspaceName: a.workspace.name, tier: a.workspace.tier };
}
