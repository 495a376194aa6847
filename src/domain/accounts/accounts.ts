import type { PrismaClient } from '../../generated/prisma/client.ts';
import { verifyPassword } from './password.ts';

/** Control-plane accounts: address and password rules, credential checks (registration: registration.ts). */

export type AccountView = {
  id: number;
  email: string;
  workspaceId: number;
  workspaceName: string;
  tier: string;
  /** The owner proved the address; until then no mail but a confirmation link is sent to it. */
  emailVerified: boolean;
};

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;
// No control characters anywhere (\s does not cover NUL or DEL; PostgreSQL refuses NUL in text).
const EMAIL =
  /^[^\s@<>()[\]\\,;:"\u0000-\u001f\u007f]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)+$/;

/** Lower-cased and trimmed: one account per mailbox, however it is typed. */
export function normalizeEmail(input: string): string {
  return input.trim().toLowerCase();
}

/** The addresses an account may have (after normalizeEmail). */
export function isAccountEmail(email: string): boolean {
  return email.length <= 254 && EMAIL.test(email);
}

export function checkPassword(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `The password must have at least ${PASSWORD_MIN} characters.`;
  if (length > PASSWORD_MAX) return `The password may have at most ${PASSWORD_MAX} characters.`;
  return null;
}

/** The account when the password matches; null otherwise (unknown e-mail and wrong password look the same). */
export async function checkCredentials(
  prisma: PrismaClient,
  emailInput: string,
  password: string,
): Promise<AccountView | null> {
  const email = normalizeEmail(emailInput);
  // Registration accepts only well-formed addresses, so nothing else can be an account; and PostgreSQL refuses
  // some text outright (NUL: an error, not "no rows"). Not looked up, but hashed all the same: no timing tell.
  const account = isAccountEmail(email)
    ? await prisma.account.findUnique({ where: { email }, include: { workspace: true } })
    : null;
  const check = await verifyPassword(password, account?.passwordHash ?? null);
  if (!check.ok || !account) return null;
  if (check.rehash) {
    // Stored under weaker parameters: replaced now (unless the password changed meanwhile).
    await prisma.account.updateMany({
      where: { id: account.id, passwordHash: account.passwordHash },
      data: { passwordHash: check.rehash },
    });
  }
  return view(account);
}

export async function loadAccount(prisma: PrismaClient, id: number): Promise<AccountView | null> {
  const account = await prisma.account.findUnique({ where: { id }, include: { workspace: true } });
  return account ? view(account) : null;
}

function view(a: {
  id: number;
  email: string;
  workspaceId: number;
  emailVerifiedAt: Date | null;
  workspace: { name: string; tier: string };
}): AccountView {
  return {
    id: a.id,
    email: a.email,
    workspaceId: a.workspaceId,
    workspaceName: a.workspace.name,
    tier: a.workspace.tier,
    emailVerified: a.emailVerifiedAt !== null,
  };
}
