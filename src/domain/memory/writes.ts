import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Viewer } from '../access/verifier.ts';
import type { IpMemoryCache } from './ip-memory.ts';
import type { ReportInput } from './schemas.ts';
import { effectiveVisibility } from './vocabulary.ts';
import { writeOne, type BatchStatement, type GroupCommit } from './group-commit.ts';
import { writeOnce, type Idempotency, type Written } from './idempotency.ts';
import { RatingBatcher, ratingStatement, type RatingRow } from './rating-batch.ts';
import { ReportBatcher, reportStatement, type ReportRow, type ReportWrite } from './report-batch.ts';

export type { RatingRow } from './rating-batch.ts';
export type { ReportRow, ReportWrite } from './report-batch.ts';

/** Validated, normalised input (see schemas.ts): what `rate` writes. */
export type RateWrite = { ip: string; rating: number; note: string };

/**
 * What a write needs: the database, this process's copy of the workspaces' memory of IPs, which each write brings
 * up to date, and optionally who is told each group-commit batch's size (the metrics).
 */
export type MemoryDeps = {
  prisma: PrismaClient;
  ipMemory: Pick<IpMemoryCache, 'apply'>;
  observeBatch?: BatchObserver | undefined;
};
export type BatchObserver = (writer: 'rating' | 'report', size: number) => void;

/** One batcher per database client: every write of the process shares its group commit (and its observer). */
function perClient<B>(
  writer: 'rating' | 'report',
  make: (prisma: PrismaClient, onBatch: ((size: number) => void) | undefined) => B,
) {
  const batchers = new WeakMap<PrismaClient, B>();
  return (deps: MemoryDeps): B => {
    let batcher = batchers.get(deps.prisma);
    const observe = deps.observeBatch;
    if (!batcher)
      batchers.set(deps.prisma, (batcher = make(deps.prisma, observe ? (size) => observe(writer, size) : undefined)));
    return batcher;
  };
}
const ratingBatcher = perClient(
  'rating',
  (prisma, onBatch) => new RatingBatcher(prisma, undefined, undefined, onBatch),
);
const reportBatcher = perClient(
  'report',
  (prisma, onBatch) => new ReportBatcher(prisma, undefined, undefined, onBatch),
);

/**
 * One write of `rate` or `report`. Without an Idempotency-Key it goes through the process's group
 * commit (group-commit.ts): one statement for many concurrent writes. With one, the same statement
 * writes it alone, in the transaction that also stores the idempotency record (idempotency.ts).
 */
function writeMemory<I, S, R extends { id: number }>(
  prisma: PrismaClient,
  workspaceId: number,
  input: I,
  batcher: GroupCommit<I, S, R>,
  statement: (db: Pick<PrismaClient, '$queryRaw'>) => BatchStatement<I, S, R>,
  idem: Idempotency | null,
): Promise<Written<R>> {
  if (!idem) return batcher.write(input).then((row) => ({ id: row.id, replayed: false, row }));
  return writeOnce(prisma, workspaceId, idem, async (tx) => {
    const row = await writeOne(statement(tx), input);
    return { id: row.id, row };
  });
}

/** Stores a rating of an IP (its subject node is created on first use). */
export async function writeRating(
  deps: MemoryDeps,
  viewer: Viewer,
  input: RateWrite,
  idempotencyKey?: string,
): Promise<Written<RatingRow>> {
  const { prisma } = deps;
  const written = await writeMemory(
    prisma,
    viewer.workspaceId,
    { workspaceId: viewer.workspaceId, apiKeyId: viewer.apiKeyId, ...input },
    ratingBatcher(deps),
    ratingStatement,
    idempotencyKey ? { key: idempotencyKey, endpoint: 'rate', request: input } : null,
  );
  // committed: the memory the statement left shows in this process's next score (a replay wrote nothing)
  if (written.row) deps.ipMemory.apply([written.row.subject]);
  return written;
}

/**
 * Stores a report, its subject and each related subject with its role. Subject nodes are found
 * or created with INSERT ... ON CONFLICT, so concurrent reports about the same new subject
 * converge on one node (test/reliability/concurrency-subjects.test.ts). The visibility asked for is
 * stored with the one the share policy allows (vocabulary.ts).
 */
export async function writeReport(
  deps: MemoryDeps,
  viewer: Viewer,
  input: ReportInput,
  idempotencyKey?: string,
): Promise<Written<ReportRow>> {
  const { prisma } = deps;
  const report = reportWriteOf(input);
  const written = await writeMemory(
    prisma,
    viewer.workspaceId,
    { workspaceId: viewer.workspaceId, apiKeyId: viewer.apiKeyId, ...report },
    reportBatcher(deps),
    reportStatement,
    idempotencyKey ? { key: idempotencyKey, endpoint: 'report', request: report } : null,
  );
  if (written.row) deps.ipMemory.apply(subjectsOf(written.row));
  return written;
}

/**
 * A validated report as it is written: with the visibility the share policy allows. The whole input travels on
 * (visibility included): it is also what an idempotency key's request hash covers, for `report` and for each line
 * of the bulk report alike (report-bulk.ts).
 */
export function reportWriteOf(input: ReportInput): ReportWrite {
  const allowed = effectiveVisibility(input.visibility, input.sharePolicy);
  return {
    ...input,
    requestedVisibility: input.visibility,
    effectiveVisibility: allowed.effective,
    policyNotice: allowed.notice,
  };
}

/** Every subject a stored report names, each with its memory as the write left it (what this process's copy takes). */
export function subjectsOf(row: ReportRow) {
  return [row.subject, ...row.links.map((l) => l.subject)];
}
