import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Viewer } from '../access/verifier.ts';
import { writeOne, type BatchStatement, type GroupCommit } from './group-commit.ts';
import { writeOnce, type Idempotency, type Written } from './idempotency.ts';
import { RatingBatcher, ratingStatement, type RatingRow } from './rating-batch.ts';
import { ReportBatcher, reportStatement, type ReportRow, type ReportWrite } from './report-batch.ts';

export type { RatingRow } from './rating-batch.ts';
export type { ReportRow, ReportWrite } from './report-batch.ts';

/** Validated, normalised input (see schemas.ts): what `rate` writes. */
export type RateWrite = { ip: string; rating: number; note: string };

/** One batcher per database client: every write of the process shares its group commit. */
function perClient<B>(make: (prisma: PrismaClient) => B): (prisma: PrismaClient) => B {
  const batchers = new WeakMap<PrismaClient, B>();
  return (prisma) => {
    let batcher = batchers.get(prisma);
    if (!batcher) batchers.set(prisma, (batcher = make(prisma)));
    return batcher;
  };
}
const ratingBatcher = perClient((prisma) => new RatingBatcher(prisma));
const reportBatcher = perClient((prisma) => new ReportBatcher(prisma));

/**
 * One write of `rate` or `report`. Without an Idempotency-Key it goes through the process's group
 * commit (group-commit.ts): one statement for many concurrent writes. With one, the same statement
 * writes it alone, in the transaction that also stores the idempotency record (idempotency.ts).
 */
function writeMemory<I, S, R extends { id: number }>(
  prisma: PrismaClient, workspaceId: number, input: I,
  batcher: GroupCommit<I, S, R>, statement: (db: Pick<PrismaClient, '$queryRaw'>) => BatchStatement<I, S, R>,
  idem: Idempotency | null,
): Promise<Written<R>> {
  if (!idem) return batcher.write(input).then((row) => ({ id: row.id, replayed: false, row }));
  return writeOnce(prisma, workspaceId, idem, async (tx) => {
    const row = await writeOne(statement(tx), input);
    return { id: row.id, row };
  });
}

/** Stores a rating of an IP (its subject node is created on first use). */
export function writeRating(prisma: PrismaClient, viewer: Viewer, input: RateWrite, idempotencyKey?: string): Promise<Written<RatingRow>> {
  return writeMemory(prisma, viewer.workspaceId, { workspaceId: viewer.workspaceId, apiKeyId: viewer.apiKeyId, ...input },
    ratingBatcher(prisma), ratingStatement, idempotencyKey ? { key: idempotencyKey, endpoint: 'rate', request: input } : null);
}

/**
 * Stores a report, its subject and each related subject with its role. Subject nodes are found
 * or created with INSERT ... ON CONFLICT, so concurrent reports about the same new subject
 * converge on one node (test/reliability/concurrency-subjects.test.ts).
 */
export function writeReport(prisma: PrismaClient, viewer: Viewer, input: ReportWrite, idempotencyKey?: string): Promise<Written<ReportRow>> {
  return writeMemory(prisma, viewer.workspaceId, { workspaceId: viewer.workspaceId, apiKeyId: viewer.apiKeyId, ...input },
    reportBatcher(prisma), reportStatement, idempotencyKey ? { key: idempotencyKey, endpoint: 'report', request: input } : null);
}
