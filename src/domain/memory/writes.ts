import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Viewer } from '../access/verifier.ts';
import { writeOne } from './group-commit.ts';
import { writeOnce, type Written } from './idempotency.ts';
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
 * Stores a rating of an IP (its subject node is created on first use). Without an Idempotency-Key
 * it goes through the group commit (rating-batch.ts): one statement for many concurrent ratings.
 * With one, the rating and the idempotency record commit together in a transaction of their own.
 */
export function writeRating(prisma: PrismaClient, viewer: Viewer, input: RateWrite, idempotencyKey?: string): Promise<Written<RatingRow>> {
  const rating = { workspaceId: viewer.workspaceId, apiKeyId: viewer.apiKeyId, ...input };
  if (!idempotencyKey) return ratingBatcher(prisma).write(rating).then((row) => ({ id: row.id, replayed: false, row }));
  return writeOnce(prisma, viewer.workspaceId, { key: idempotencyKey, endpoint: 'rate', request: input }, async (tx) => {
    const row = await writeOne(ratingStatement(tx), rating);
    return { id: row.id, row };
  });
}

/**
 * Stores a report, its subject and each related subject with its role. Subject nodes are found
 * or created with INSERT ... ON CONFLICT, so concurrent reports about the same new subject
 * converge on one node (test/reliability/concurrency-subjects.test.ts). Without an
 * Idempotency-Key it goes through the group commit (report-batch.ts): one statement for many
 * concurrent reports. With one, the same statement writes the report alone, in the transaction
 * that stores the idempotency record.
 */
export function writeReport(prisma: PrismaClient, viewer: Viewer, input: ReportWrite, idempotencyKey?: string): Promise<Written<ReportRow>> {
  const report = { workspaceId: viewer.workspaceId, apiKeyId: viewer.apiKeyId, ...input };
  if (!idempotencyKey) return reportBatcher(prisma).write(report).then((row) => ({ id: row.id, replayed: false, row }));
  return writeOnce(prisma, viewer.workspaceId, { key: idempotencyKey, endpoint: 'report', request: input }, async (tx) => {
    const row = await writeOne(reportStatement(tx), report);
    return { id: row.id, row };
  });
}
