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
import { OWN_EPOCH_MS } from '../scoring/own-verdict.ts';
import { HALF_LIFE_MS, OUTCOME_CODES } from '../scoring/weights.ts';

/** A subject with its memory as a write left it (the shape of Prisma's `include: { memory: true }`). */
export type SubjectWithMemory = Subject & { memory: SubjectMemory };

/**
 * What a statement adds, one row per subject: a SELECT of the columns subject_id, good, neutral, bad, reports
 * (counts to add), last_id, last_rating, last_note, last_at (the statement's own latest rating of the
 * subject, or NULLs), the own-verdict columns of `ownVerdictAdded` and `outcomes` (`outcomesAdded`, or '{}').
 */
export type MemoryDelta = Prisma.Sql;

/**
 * The own-verdict columns of a delta (scoring/own-verdict.ts, OwnEvidence), aggregated over rows with a signed
 * `weight` (ownItemWeight, computed in TypeScript and sent with the input), a time `at` and a boolean `floor`
 * (setsFloor): each side's sum of |weight| · 2^((at − OWN_EPOCH_MS) / HALF_LIFE_MS) and its newest time.
 */
export function ownVerdictAdded(weight: Prisma.Sql, at: Prisma.Sql, floor: Prisma.Sql): Prisma.Sql {
  const held = Prisma.sql`abs(${weight}) * power(2::float8, (extract(epoch FROM ${at}) * 1000 - ${OWN_EPOCH_MS}::float8) / ${HALF_LIFE_MS}::float8)`;
  return Prisma.sql`coalesce(sum(${held}) FILTER (WHERE ${weight} > 0), 0)::float8 AS own_bad,
         coalesce(sum(${held}) FILTER (WHERE ${weight} < 0), 0)::float8 AS own_good,
         max(${at}) FILTER (WHERE ${weight} > 0) AS own_bad_at, max(${at}) FILTER (WHERE ${weight} < 0) AS own_good_at,
         max(${at}) FILTER (WHERE ${floor}) AS own_floor_at`;
}

/**
 * The `outcomes` column of a delta: the rows counted by outcome code, in OUTCOME_CODES order, over rows with an
 * outcome code `code` (the report statement's reports, each once per subject).
 */
export function outcomesAdded(code: Prisma.Sql): Prisma.Sql {
  const counts = OUTCOME_CODES.map((c) => Prisma.sql`count(*) FILTER (WHERE ${code} = ${c}::text)`);
  return Prisma.sql`ARRAY[${Prisma.join(counts)}]::int[] AS outcomes`;
}

/** A delta that adds no report: its `outcomes` column. */
export const NO_OUTCOMES_ADDED = Prisma.sql`'{}'::int[] AS outcomes`;

/** `current` + `added` element by element (the shorter one padded with zeros): counts only ever add up. */
const addOutcomes = (current: Prisma.Sql, added: Prisma.Sql) =>
  Prisma.sql`ARRAY(SELECT coalesce(a, 0) + coalesce(b, 0) FROM unnest(coalesce(${current}, '{}'), coalesce(${added}, '{}')) WITH ORDINALITY AS o(a, b, i) ORDER BY i)`;

/** The data-modifying CTE body that adds `delta` to the memory rows; RETURNING the rows as they are now. */
export function addToMemory(delta: MemoryDelta): Prisma.Sql {
  const later = Prisma.sql`coalesce(EXCLUDED."lastRatingId" > m."lastRatingId", EXCLUDED."lastRatingId" IS NOT NULL)`;
  return Prisma.sql`
      INSERT INTO "SubjectMemory" AS m ("subjectId", "good", "neutral", "bad", "reports", "lastRatingId", "lastRating", "lastNote", "lastRatedAt",
        "ownBad", "ownGood", "ownBadAt", "ownGoodAt", "ownFloorAt", "outcomes", "writtenXid")
      SELECT subject_id, good, neutral, bad, reports, last_id, last_rating, last_note, last_at,
        own_bad, own_good, own_bad_at, own_good_at, own_floor_at, outcomes, pg_current_xact_id()::text::bigint
        FROM (${delta}) AS delta ORDER BY subject_id
      ON CONFLICT ("subjectId") DO UPDATE SET
        "good" = m."good" + EXCLUDED."good", "neutral" = m."neutral" + EXCLUDED."neutral", "bad" = m."bad" + EXCLUDED."bad",
        "reports" = m."reports" + EXCLUDED."reports",
        "ownBad" = m."ownBad" + EXCLUDED."ownBad", "ownGood" = m."ownGood" + EXCLUDED."ownGood",
        "ownBadAt" = greatest(m."ownBadAt", EXCLUDED."ownBadAt"), "ownGoodAt" = greatest(m."ownGoodAt", EXCLUDED."ownGoodAt"),
        "ownFloorAt" = greatest(m."ownFloorAt", EXCLUDED."ownFloorAt"),
        "outcomes" = ${addOutcomes(Prisma.sql`m."outcomes"`, Prisma.sql`EXCLUDED."outcomes"`)},
        "lastRatingId" = CASE WHEN ${later} THEN EXCLUDED."lastRatingId" ELSE m."lastRatingId" END,
        "lastRating" = CASE WHEN ${later} THEN EXCLUDED."lastRating" ELSE m."lastRating" END,
        "lastNote" = CASE WHEN ${later} THEN EXCLUDED."lastNote" ELSE m."lastNote" END,
        "lastRatedAt" = CASE WHEN ${later} THEN EXCLUDED."lastRatedAt" ELSE m."lastRatedAt" END,
        "revision" = m."revision" + 1, "writtenXid" = EXCLUDED."writtenXid"
      RETURNING *`;
}

/** A memory row as `row_to_json` returns it from a statement (timestamps as text, the xid as a number). */
export type MemoryJson = Omit<SubjectMemory, 'lastRatedAt' | 'writtenXid' | 'ownBadAt' | 'ownGoodAt' | 'ownFloorAt'> & {
  lastRatedAt: string | null;
  ownBadAt: string | null;
  ownGoodAt: string | null;
  ownFloorAt: string | null;
  writtenXid: number;
};

const dateOf = (s: string | null) => (s === null ? null : new Date(s));

export function memoryFromJson(m: MemoryJson): SubjectMemory {
  return {
    ...m,
    lastRatedAt: dateOf(m.lastRatedAt),
    ownBadAt: dateOf(m.ownBadAt),
    ownGoodAt: dateOf(m.ownGoodAt),
    ownFloorAt: dateOf(m.ownFloorAt),
    writtenXid: BigInt(m.writtenXid),
  };
}
