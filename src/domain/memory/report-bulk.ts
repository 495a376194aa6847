/**
 * Bulk report (POST /risk_api/report/bulk/, GraphQL `reportBulk`, MCP `report_subjects`): many reports in one
 * request, each judged alone by the single `report`'s own schema (the transport checks it, as it checks a
 * `report` body) and written by `report`'s own statement (report-batch.ts), so the rules and the write exist once.
 *
 * Lines are taken in chunks (BULK_CHUNK_SIZE). A chunk's valid lines are stored in ONE transaction: its reports,
 * their subjects, links and memory (one statement) and the idempotency records of its keyed lines, so a failed
 * chunk leaves nothing behind and a crash never leaves a report without its key or a key without its report.
 * Chunks bound how long one request holds a transaction (and, on the embedded database, its only connection),
 * and the event loop is given back between chunks so other requests are served meanwhile.
 *
 * Per line, an optional idempotency key has `report`'s Idempotency-Key semantics, in the same records (endpoint
 * `report`, the same request hash): a key seen before with the same report is `replayed` with the first write's
 * id, with another report it is that line's `idempotency_key_reused`. A key used by `report` and then by a bulk
 * line (or the other way round) is the same key.
 */
import type { Viewer } from '../access/verifier.ts';
import { AppError, type ErrorCode, type ErrorDetail } from '../../errors.ts';
import type { ReportInput } from './schemas.ts';
import { reportStatement, type NewReport, type ReportRow, type ReportWrite } from './report-batch.ts';
import { keyReused, replayOf, requestHash, type Written } from './idempotency.ts';
import { reportWriteOf, subjectsOf, type MemoryDeps } from './writes.ts';

/**
 * Lines per transaction. PostgreSQL: 500, so a 10,000-line body is 20 statements, each holding its locks briefly.
 * Embedded: 100, because PGlite runs inside this process and a statement holds the event loop while it runs
 * (a 500-line chunk measured ~400 ms of loop delay in bench/, a 100-line one a fifth of that), so other requests
 * are served between chunks.
 */
export const BULK_CHUNK_SIZE = { postgres: 500, embedded: 100 } as const;
/** A chunk's transaction may take this long (Prisma's default of 5 s is meant for one small write). */
const CHUNK_TIMEOUT_MS = 60_000;
/** What a line calls its key, in messages. */
const KEY_NAME = 'idempotency_key';

/** A line as its transport checked it: the validated report and its optional idempotency key. */
export type CheckedLine = { input: ReportInput; idempotencyKey?: string | undefined };
/**
 * One report of a bulk request: where the client finds it (a body's line number, a list's position) and how
 * to check it (throws the AppError the transport's validation gives). Checks run chunk by chunk, so a large
 * body is never validated all at once on the event loop.
 */
export type BulkLine = { line: number; check: () => CheckedLine };

export type BulkResult =
  | { line: number; status: 'created' | 'replayed'; id: number }
  | { line: number; status: 'error'; error: ErrorCode; message: string; details: ErrorDetail[] };
export type BulkTotals = { lines: number; created: number; replayed: number; errors: number };
export type BulkAnswer = { chunkSize: number; results: BulkResult[]; totals: BulkTotals };

/**
 * Checks and writes every line, chunk after chunk; one answer per line, in order. A chunk that fails to write
 * (the database dropped, a bug) rolled back whole: each of its valid lines is answered with `asError` of the
 * failure (database_unavailable, internal_error), and the next chunks are still tried, so the client resends
 * exactly the lines that say so (safely, when they carry keys).
 */
export async function writeReportLines(
  deps: MemoryDeps & { bulkChunkSize: number },
  viewer: Viewer,
  lines: readonly BulkLine[],
  asError: (e: unknown) => AppError,
): Promise<BulkAnswer> {
  const chunkSize = deps.bulkChunkSize;
  const results: BulkResult[] = [];
  for (let start = 0; start < lines.length; start += chunkSize) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const chunk = lines.slice(start, start + chunkSize);
    const answers: BulkResult[] = new Array(chunk.length);
    const valid: Array<CheckedLine & { at: number }> = [];
    chunk.forEach((l, at) => {
      try {
        valid.push({ ...l.check(), at });
      } catch (e) {
        answers[at] = failed(l.line, asError(e));
      }
    });
    try {
      const written = valid.length ? await writeChunk(deps, viewer, valid) : [];
      valid.forEach((v, i) => {
        const w = written[i]!;
        const line = chunk[v.at]!.line;
        answers[v.at] =
          w instanceof AppError ? failed(line, w) : { line, status: w.replayed ? 'replayed' : 'created', id: w.id };
      });
    } catch (e) {
      const error = asError(e);
      for (const v of valid) answers[v.at] = failed(chunk[v.at]!.line, error);
    }
    results.push(...answers);
  }
  return { chunkSize, results, totals: totalsOf(results) };
}

function failed(line: number, e: AppError): BulkResult {
  return { line, status: 'error', error: e.code, message: e.message, details: e.details ?? [] };
}

function totalsOf(results: readonly BulkResult[]): BulkTotals {
  const totals = { lines: results.length, created: 0, replayed: 0, errors: 0 };
  for (const r of results) totals[r.status === 'error' ? 'errors' : r.status]++;
  return totals;
}

type Planned = { report: ReportWrite; key: string | undefined; hash: string };

/**
 * One chunk's writes, one answer per line: what it stored, what it replayed, or a key-reused refusal. Another
 * request may commit one of the chunk's keys between this chunk's read of the records and its commit: the
 * unique key then fails the transaction, nothing of the chunk was written, and the chunk is planned once more
 * from the records as they now are.
 */
async function writeChunk(
  deps: MemoryDeps,
  viewer: Viewer,
  lines: readonly CheckedLine[],
): Promise<Array<Written<ReportRow> | AppError>> {
  const planned = lines.map((l): Planned => {
    const report = reportWriteOf(l.input);
    return { report, key: l.idempotencyKey, hash: l.idempotencyKey ? requestHash(report) : '' };
  });
  try {
    return await attempt(deps, viewer, planned);
  } catch (e) {
    if ((e as { code?: string }).code !== 'P2002') throw e;
    return attempt(deps, viewer, planned);
  }
}

async function attempt(
  deps: MemoryDeps,
  viewer: Viewer,
  planned: readonly Planned[],
): Promise<Array<Written<ReportRow> | AppError>> {
  const { prisma } = deps;
  const workspaceId = viewer.workspaceId;
  const keys = [...new Set(planned.flatMap((p) => (p.key ? [p.key] : [])))];
  const records = keys.length
    ? await prisma.idempotencyRecord.findMany({ where: { workspaceId, key: { in: keys } } })
    : [];
  const recorded = new Map(records.map((r) => [r.key, r]));

  // Each line: answered from a stored record, the same as an earlier line of this chunk, or written now.
  const outcome: Array<Written<ReportRow> | AppError | { sameAs: number }> = new Array(planned.length);
  const toWrite: number[] = [];
  const firstWith = new Map<string, number>();
  planned.forEach((p, i) => {
    if (p.key) {
      const record = recorded.get(p.key);
      if (record) {
        outcome[i] = replayOf(record, 'report', p.hash, KEY_NAME);
        return;
      }
      const first = firstWith.get(p.key);
      if (first !== undefined) {
        outcome[i] = planned[first]!.hash === p.hash ? { sameAs: first } : keyReused(KEY_NAME);
        return;
      }
      firstWith.set(p.key, i);
    }
    toWrite.push(i);
  });

  const inputs: NewReport[] = toWrite.map((i) => ({ workspaceId, apiKeyId: viewer.apiKeyId, ...planned[i]!.report }));
  const rows =
    inputs.length === 0
      ? []
      : await prisma.$transaction(
          async (tx) => {
            const statement = reportStatement(tx);
            const stored = statement.answers(inputs, await statement.write(inputs));
            const keyed = toWrite.flatMap((i, n) => {
              const p = planned[i]!;
              return p.key
                ? [
                    {
                      workspaceId,
                      key: p.key,
                      endpoint: 'report',
                      requestHash: p.hash,
                      status: 200,
                      response: { id: stored[n]!.id },
                    },
                  ]
                : [];
            });
            if (keyed.length) await tx.idempotencyRecord.createMany({ data: keyed });
            return stored;
          },
          { timeout: CHUNK_TIMEOUT_MS, maxWait: CHUNK_TIMEOUT_MS },
        );
  // committed: the memory the statement left shows in this process's next score, as after a single report
  deps.ipMemory.apply(rows.flatMap(subjectsOf));
  toWrite.forEach((i, n) => {
    outcome[i] = { id: rows[n]!.id, replayed: false, row: rows[n]! };
  });
  return outcome.map((o) => ('sameAs' in o ? { id: (outcome[o.sameAs] as Written).id, replayed: true } : o));
}
