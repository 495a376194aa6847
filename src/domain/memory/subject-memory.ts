/**
 * The workspace's memory of a subject (table "SubjectMemory"): its ratings by value, the reports naming it
 * (each once) and its last rating, kept by the write statements themselves so that reading it never counts
 * history. The rating and report statements (rating-batch.ts, report-batch.ts) each end in the upsert below,
 * in the same statement and so the same transaction as the rows they add, and return the memory rows as
 * they left them; the score path reads every process's copy of them (ip-memory.ts).
 *
 * Concurrency: a statement adds its deltas to the rows (`good = good + n`), so concurrent writers never
 * lose each other's counts, and the last rating is the one with the highest rating id whichever commits
 * first, as the count that this table replaced defined it. A memory row is only ever locked by a statement
 * that already holds the lock of its Subject row (both statements upsert their subjects first, in one
 * order), so memory rows add no new lock order and no deadlock.
 * `revision` grows by one per change, so a copy can tell a newer row from an older one whatever order they
 * reach it in; `writtenXid` is the writing transaction's id, which copies follow (ip-memory.ts).
 */
import { Prisma, type Subject, type SubjectMemory } from '../../generated/prisma/client.ts';

/** A subject with its memory as a write left it (the shape of Prisma's `include: { memory: true }`). */
export type SubjectWithMemory = Subject & { memory: SubjectMemory };

/**
 * What a statement adds, one row per subject: a SELECT of the columns subject_id, good, neutral, bad, reports
 * (counts to add) and last_id, last_rating, last_note, last_at (the statement's own latest rating of the
 * subject, or NULLs).
 */
export type MemoryDelta = Prisma.Sql;

/** The data-modifying CTE body that adds `delta` to the memory rows; RETURNING the rows as they are now. */
export function addToMemory(delta: MemoryDelta): Prisma.Sql {
  const later = Prisma.sql`coalesce(EXCLUDED."lastRatingId" > m."lastRatingId", EXCLUDED."lastRatingId" IS NOT NULL)`;
  return Prisma.sql`
      INSERT INTO "SubjectMemory" AS m ("subjectId", "good", "neutral", "bad", "reports", "lastRatingId", "lastRating", "lastNote", "lastRatedAt", "writtenXid")
      SELECT subject_id, good, neutral, bad, reports, last_id, last_rating, last_note, last_at, pg_current_xact_id()::text::bigint
        FROM (${delta}) AS delta ORDER BY subject_id
      ON CONFLICT ("subjectId") DO UPDATE SET
        "good" = m."good" + EXCLUDED."good", "neutral" = m."neutral" + EXCLUDED."neutral", "bad" = m."bad" + EXCLUDED."bad",
        "reports" = m."reports" + EXCLUDED."reports",
        "lastRatingId" = CASE WHEN ${later} THEN EXCLUDED."lastRatingId" ELSE m."lastRatingId" END,
        "lastRating" = CASE WHEN ${later} THEN EXCLUDED."lastRating" ELSE m."lastRating" END,
        "lastNote" = CASE WHEN ${later} THEN EXCLUDED."lastNote" ELSE m."lastNote" END,
        "lastRatedAt" = CASE WHEN ${later} THEN EXCLUDED."lastRatedAt" ELSE m."lastRatedAt" END,
        "revision" = m."revision" + 1, "writtenXid" = EXCLUDED."writtenXid"
      RETURNING *`;
}

/** A memory row as `row_to_json` returns it from a statement (timestamps as text, the xid as a number). */
export type MemoryJson = Omit<SubjectMemory, 'lastRatedAt' | 'writtenXid'> & { lastRatedAt: string | null; writtenXid: number };

export function memoryFromJson(m: MemoryJson): SubjectMemory {
  return { ...m, lastRatedAt: m.lastRatedAt === null ? null : new Date(m.lastRatedAt), writtenXid: BigInt(m.writtenXid) };
}
