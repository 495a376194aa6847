import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { loadAccount, type AccountView } from './accounts.ts';

/**
 * Server-side sessions. The cookie carries a random token; the table stores only its SHA-256,
 * with a CSRF token bound to the session. Sessions expire after a fixed lifetime (no sliding),
 * and sign-out deletes the row, so a copied cookie stops working at once.
 */
export type Session = { id: string; csrfToken: string; expiresAt: Date; account: AccountView };

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

export async function createSession(
  prisma: PrismaClient,
  accountId: number,
  ttlMs: number,
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + ttlMs);
  await prisma.webSession.create({
    data: { id: digest(token), accountId, csrfToken: randomBytes(24).toString('base64url'), expiresAt },
  });
  // Opportunistic cleanup keeps the table small without a scheduler.
  await prisma.webSession.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  return { token, expiresAt };
}

export async function readSession(prisma: PrismaClient, token: string | undefined): Promise<Session | null> {
  if (!token || token.length > 100) return null;
  const row = await prisma.webSession.findUnique({ where: { id: digest(token) } });
  if (!row || row.expiresAt.getTime() <= Date.now()) return null;
  const account = await loadAccount(prisma, row.accountId);
  return account ? { id: row.id, csrfToken: row.csrfToken, expiresAt: row.expiresAt, account } : null;
}

export async function destroySession(prisma: PrismaClient, token: string | undefined): Promise<void> {
  if (token) await prisma.webSession.deleteMany({ where: { id: digest(token) } });
}

export function sameToken(a: string | undefined | null, b: string): boolean {
  if (!a) return false;
  const x = Buffer.from(a),
    y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
