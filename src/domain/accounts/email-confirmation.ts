import { createHash, randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';

/**
 * E-mailed confirmation links: 32 random bytes in the link, only their SHA-256 in the table (a leaked
 * table confirms nothing). A link lasts CONFIRMATION_TTL_MS and works once.
 */
export const CONFIRMATION_TTL_MS = 24 * 3_600_000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/** A new link for `email`; with `passwordHash`, using it creates the account with that password. */
export async function issueConfirmation(
  prisma: PrismaClient,
  email: string,
  passwordHash: string | null,
  nowMs = Date.now(),
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await prisma.$transaction([
    // Opportunistic cleanup of expired links keeps the table small without a scheduler.
    prisma.emailVerification.deleteMany({ where: { expiresAt: { lte: new Date(nowMs) } } }),
    prisma.emailVerification.create({
      data: { id: digest(token), email, passwordHash, expiresAt: new Date(nowMs + CONFIRMATION_TTL_MS) },
    }),
  ]);
  return token;
}

export type PendingConfirmation = { id: string; email: string; passwordHash: string | null };

/** The live link a token names; null for a malformed, unknown, used or expired one. Reads only. */
export async function findConfirmation(
  prisma: PrismaClient,
  token: string,
  nowMs = Date.now(),
): Promise<PendingConfirmation | null> {
  if (!TOKEN.test(token)) return null;
  const row = await prisma.emailVerification.findUnique({ where: { id: digest(token) } });
  return row && row.expiresAt.getTime() > nowMs
    ? { id: row.id, email: row.email, passwordHash: row.passwordHash }
    : null;
}

type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/**
 * Uses up a link and applies what it allows in one transaction: of two concurrent uses exactly one
 * deletes the row and runs `apply`; the other gets null, as does a link used meanwhile.
 */
export async function consumeConfirmation<T>(
  prisma: PrismaClient,
  link: PendingConfirmation,
  apply: (tx: Tx) => Promise<T>,
): Promise<T | null> {
  return prisma.$transaction(async (tx) => {
    const taken = await tx.emailVerification.deleteMany({ where: { id: link.id } });
    return taken.count === 1 ? apply(tx) : null;
  });
}
