import { createHash } from 'node:crypto';
import type { PrismaClient, Prisma } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';

/** Idempotency-Key: 1-255 printable ASCII characters (as the IETF draft allows any opaque string). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
/** Records are kept at least this long (an hourly sweep deletes older ones); the API documents the hours. */
export const IDEMPOTENCY_TTL_HOURS = 48;
export const IDEMPOTENCY_TTL_MS = IDEMPOTENCY_TTL_HOURS * 3600 * 1000;

export type Idempotency = { key: string; endpoint: 'rate' | 'report'; request: unknown };
/** What a write stored: its id, whether it was a replay, and the stored row when the write returned it. */
export type Written<R = unknown> = { id: number; replayed: boolean; row?: R };
type WriteResult<R> = { id: number; row?: R };

export function requestHash(request: unknown): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('hex');
}

/**
 * Runs `write` in one transaction with a record of the Idempotency-Key sent, which holds the id
 * of what it wrote. A retry with the same key and body gets the first write's id back without
 * writing again; the same key with another body is a 409. Because the record commits with the
 * write, a crash can never leave one without the other.
 */
export async function writeOnce<R>(
  prisma: PrismaClient,
  workspaceId: number,
  idem: Idempotency,
  write: (tx: Prisma.TransactionClient) => Promise<WriteResult<R>>,
): Promise<Written<R>> {
  const hash = requestHash(idem.request);
  const previous = await replay(prisma, workspaceId, idem, hash);
  if (previous) return previous;
  try {
    const done = await prisma.$transaction(async (tx) => {
      const done = await write(tx);
      await tx.idempotencyRecord.create({
        data: {
          workspaceId,
          key: idem.key,
          endpoint: idem.endpoint,
          requestHash: hash,
          status: 200,
          response: { id: done.id },
        },
      });
      return done;
    });
    return { ...done, replayed: false };
  } catch (e) {
    // A concurrent request with the same key committed first: answer with its result.
    if ((e as { code?: string }).code === 'P2002') {
      const winner = await replay(prisma, workspaceId, idem, hash);
      if (winner) return winner;
    }
    throw e;
  }
}

async function replay(
  prisma: PrismaClient,
  workspaceId: number,
  idem: Idempotency,
  hash: string,
): Promise<Written<never> | null> {
  const record = await prisma.idempotencyRecord.findUnique({
    where: { workspaceId_key: { workspaceId, key: idem.key } },
  });
  if (!record) return null;
  const replayed = replayOf(record, idem.endpoint, hash);
  if (replayed instanceof AppError) throw replayed;
  return replayed;
}

type StoredRecord = { endpoint: string; requestHash: string; response: Prisma.JsonValue };

/** What a stored record answers a request with this endpoint and hash: its write's id, or the key-reused refusal. */
export function replayOf(
  record: StoredRecord,
  endpoint: Idempotency['endpoint'],
  hash: string,
  name?: string,
): Written<never> | AppError {
  if (record.endpoint !== endpoint || record.requestHash !== hash) return keyReused(name);
  return { id: (record.response as { id: number }).id, replayed: true };
}

/** `name`: what the caller sent the key as (the Idempotency-Key header; a bulk line's idempotency_key). */
export function keyReused(name = 'Idempotency-Key'): AppError {
  return new AppError(
    'idempotency_key_reused',
    `This ${name} was already used with a different request; use a new key for a new request.`,
  );
}

export async function sweepIdempotency(prisma: PrismaClient, now = Date.now()) {
  return prisma.idempotencyRecord.deleteMany({ where: { createdAt: { lt: new Date(now - IDEMPOTENCY_TTL_MS) } } });
}
