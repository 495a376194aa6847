/**
 * Group commit for ratings. Concurrent `rate` calls (those without an Idempotency-Key, whose
 * record must commit in a transaction of its own) are written by ONE statement per batch:
 * each statement costs a round trip, a query-compiler pass and a commit (a WAL flush), and
 * under load those, not the rows, were the cost of `rate`.
 *
 * No timer and no added wait: a call starts a batch at once while fewer than `maxInFlight`
 * statements run; otherwise it queues, and the next statement to finish takes everything
 * queued (up to `maxBatch`). At low load every call is its own statement, as before.
 * Measured on PostgreSQL at 32 connections (bench, rate): one statement per call 3,067 req/s;
 * batches with 4 / 2 / 1 statements in flight 6,285 / 7,373 / 7,816. Two keeps most of the gain
 * without letting one slow statement hold every rating of the process.
 *
 * A call is answered only after its statement committed. A statement that fails is retried
 * one row per statement, so a row that cannot be written (its workspace deleted meanwhile)
 * fails alone and never takes the other callers' ratings with it.
 */
import type { PrismaClient, Rating, Subject } from '../../generated/prisma/client.ts';

export type RatingInput = { workspaceId: number; apiKeyId: number; ip: string; rating: number; note: string };
/** A stored rating with its subject, as the write returns it (so answering needs no second read). */
export type RatingRow = Rating & { subject: Subject };

type Pending = { input: RatingInput; resolve: (row: RatingRow) => void; reject: (e: unknown) => void };
type Stored = Rating & { subjectKey: string; subjectCreatedAt: Date };

/** Rows that carry the same values are interchangeable answers: they are matched to callers by these. */
const identity = (r: { workspaceId: number; apiKeyId: number | null; rating: number; note: string }, ip: string) =>
  `${r.workspaceId}|${r.apiKeyId}|${r.rating}|${ip}|${r.note}`;

/**
 * One statement for many ratings (data-modifying CTEs): each distinct (workspace, IP) subject
 * node is found or created once, then every rating is inserted.
 */
async function storeRatings(prisma: Pick<PrismaClient, '$queryRaw'>, inputs: readonly RatingInput[]): Promise<Stored[]> {
  const col = <T>(f: (r: RatingInput) => T): T[] => inputs.map(f);
  return prisma.$queryRaw<Stored[]>`
    WITH input AS (
      SELECT * FROM unnest(${col((r) => r.workspaceId)}::int[], ${col((r) => r.ip)}::text[], ${col((r) => r.apiKeyId)}::int[],
                           ${col((r) => r.rating)}::int[], ${col((r) => r.note)}::text[]) AS t(ws, ip, api_key, rating, note)),
    subject AS (
      INSERT INTO "Subject" ("workspaceId", "kind", "key")
      SELECT DISTINCT ws, 'ipaddress', ip FROM input
      ON CONFLICT ("workspaceId", "kind", "key") DO UPDATE SET "kind" = EXCLUDED."kind"
      RETURNING id, "workspaceId", "key", "createdAt"),
    rating AS (
      INSERT INTO "Rating" ("workspaceId", "subjectId", "apiKeyId", "rating", "note")
      SELECT input.ws, subject.id, input.api_key, input.rating, input.note
        FROM input JOIN subject ON subject."workspaceId" = input.ws AND subject."key" = input.ip
      RETURNING *)
    SELECT rating.*, subject."key" AS "subjectKey", subject."createdAt" AS "subjectCreatedAt"
      FROM rating JOIN subject ON subject.id = rating."subjectId"
      ORDER BY rating.id`;
}

/** One row per input, matched by value (no reliance on the order RETURNING gives). */
function answersFor(inputs: readonly RatingInput[], stored: readonly Stored[]): RatingRow[] {
  const byIdentity = new Map<string, RatingRow[]>();
  for (const { subjectKey, subjectCreatedAt, ...rating } of stored) {
    const subject: Subject = { id: rating.subjectId, workspaceId: rating.workspaceId, kind: 'ipaddress', key: subjectKey, createdAt: subjectCreatedAt };
    const key = identity(rating, subjectKey);
    let rows = byIdentity.get(key);
    if (!rows) byIdentity.set(key, (rows = []));
    rows.push({ ...rating, subject });
  }
  return inputs.map((input) => {
    const row = byIdentity.get(identity(input, input.ip))?.shift();
    if (!row) throw new Error(`rating batch: no stored row for input ${JSON.stringify(input)}`);
    return row;
  });
}

/** Stores the ratings with one statement and returns one row per input. */
export async function insertRatings(prisma: Pick<PrismaClient, '$queryRaw'>, inputs: readonly RatingInput[]): Promise<RatingRow[]> {
  return answersFor(inputs, await storeRatings(prisma, inputs));
}

export class RatingBatcher {
  private queue: Pending[] = [];
  private inFlight = 0;

  constructor(private readonly prisma: Pick<PrismaClient, '$queryRaw'>, private readonly maxInFlight = 2, private readonly maxBatch = 256) {}

  write(input: RatingInput): Promise<RatingRow> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async run(batch: Pending[]): Promise<void> {
    const inputs = batch.map((p) => p.input);
    let stored: Stored[];
    try {
      stored = await storeRatings(this.prisma, inputs);
    } catch (e) {
      if (batch.length === 1) {
        batch[0]!.reject(e);
        return;
      }
      // nothing of the batch was written: one statement per row, so only the rows that cannot be written fail
      await Promise.all(batch.map((p) => insertRatings(this.prisma, [p.input]).then((rows) => p.resolve(rows[0]!), p.reject)));
      return;
    }
    // written: from here a failure is answered as one, never retried (a retry would write twice)
    try {
      const rows = answersFor(inputs, stored);
      batch.forEach((p, i) => p.resolve(rows[i]!));
    } catch (e) {
      for (const p of batch) p.reject(e);
    }
  }
}
