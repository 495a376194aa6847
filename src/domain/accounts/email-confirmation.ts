import { createHash, randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';

/**
 * E-mailed confirmation links: 32 random bytes in the link, only their SHA-256 in the table (a leaked
 * table confirms nothing). A link lasts CONFIRMATION_TTL_MS, works once, and issuing a new one for an
 * address voids that address's earlier ones, so only the newest mail's link works.
 */
export const CONFIRMATION_TTL_MS = 24 * 3_600_000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/** A new link for `email`; with `passwordHash`, using it creates the account with that password. */
export async function issueConfirmation(prisma: PrismaClient, email: string, passwordHash: string | null, nowMs = Date.now()): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await prisma.$transaction([
    // Opportunistic cleanup of every expired link keeps the table small without a scheduler.
    prisma.emailVerification.deleteMany({ where: { OR: [{ email }, { expiresAt: { lte: new Date(nowMs) } }] } }),
    prisma.emailVerification.create({ data: { id: digest(token), email, passwordHash, expiresAt: new Date(nowMs + CONFIRMATION_TTL_MS) } }),
  ]);
  return token;
}

export type UsedConfirmation = { email: string; passwordHash: string | null };
type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/**
 * Uses a link inside the caller's transaction: its row is deleted (so of two concurrent uses exactly one
 * gets it) and handed to `apply`. Null for a malformed, unknown, used or expired token.
 */
export async function useConfirmation<T>(prisma: PrismaClient, token: string, apply: (tx: Tx, link: UsedConfirmation) => Promise<T>, nowMs = Date.now()): Promise<T | null> {
  if (!TOKEN.test(token)) return null;
  const id = digest(token);
  return prisma.$transaction(async (tx) => {
    const row = await tx.emailVerification.findUnique({ where: { id } });
    if (!row || row.expiresAt.getTime() <= nowMs) return null;
    const taken = await tx.emailVerification.deleteMany({ where: { id } });
    if (taken.count !== 1) return null;
    return apply(tx, { email: row.email, passwordHash: row.passwordHash });
  });
}
