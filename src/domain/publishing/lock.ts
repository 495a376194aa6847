/**
 * "Only one node publishes at a time" with a PostgreSQL advisory lock.
 *
 * PostgreSQL: Prisma pools connections, so a SESSION lock taken by one $queryRaw could be
 * released by another $queryRaw on a different connection (silently failing, leaking the lock
 * until that connection closes). The lock is therefore a TRANSACTION lock
 * (pg_try_advisory_xact_lock) held by an interactive transaction that stays open while `fn`
 * runs on other pooled connections; it is released when that transaction ends, even if the
 * process dies. The unique publication version still guards correctness if the lock is skipped.
 * PGlite: one connection only. An open interactive transaction would block `fn`'s own queries,
 * so a session lock is used there (same connection for lock and unlock).
 * Both: a per-client in-process flag stops two runs in one process (e.g. CLI + timer).
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';

/** Arbitrary but fixed: the advisory lock key every node agrees on ("pub" in ASCII). */
export const PUBLISH_LOCK_KEY = 7370082;
const MAX_HOLD_MS = 2 * 60 * 60_000;

export type Locked<T> = { acquired: true; value: T } | { acquired: false };

const running = new WeakSet<PrismaClient>();
const embedded = new WeakMap<PrismaClient, boolean>();

async function isEmbedded(prisma: PrismaClient): Promise<boolean> {
  let known = embedded.get(prisma);
  if (known === undefined) {
    const [row] = await prisma.$queryRaw<Array<{ v: string }>>`SELECT version() AS v`;
    known = /pglite|emscripten|wasm/i.test(row?.v ?? '');
    embedded.set(prisma, known);
  }
  return known;
}

export async function withPublishLock<T>(prisma: PrismaClient, fn: () => Promise<T>): Promise<Locked<T>> {
  if (running.has(prisma)) return { acquired: false };
  running.add(prisma);
  try {
    if (await isEmbedded(prisma)) {
      const [row] = await prisma.$queryRaw<
        Array<{ locked: boolean }>
      >`SELECT pg_try_advisory_lock(${PUBLISH_LOCK_KEY}) AS locked`;
      if (!row?.locked) return { acquired: false };
      try {
        return { acquired: true, value: await fn() };
      } finally {
        await prisma.$queryRaw`SELECT pg_advisory_unlock(${PUBLISH_LOCK_KEY})`;
      }
    }
    return await prisma.$transaction(
      async (tx): Promise<Locked<T>> => {
        const [row] = await tx.$queryRaw<
          Array<{ locked: boolean }>
        >`SELECT pg_try_advisory_xact_lock(${PUBLISH_LOCK_KEY}) AS locked`;
        if (!row?.locked) return { acquired: false };
        return { acquired: true, value: await fn() };
      },
      { timeout: MAX_HOLD_MS, maxWait: 30_000 },
    );
  } finally {
    running.delete(prisma);
  }
}
