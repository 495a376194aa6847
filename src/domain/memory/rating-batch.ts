/**
 * Group commit for ratings (group-commit.ts): concurrent `rate` calls without an Idempotency-Key
 * (whose record must commit in a transaction of its own) are written by ONE statement per batch.
 */
import { Prisma, type PrismaClient, type Rating } from '../../generated/prisma/client.ts';
import { GroupCommit, type BatchStatement } from './group-commit.ts';
import { ownItemWeight } from '../scoring/own-verdict.ts';
import {
  addToMemory,
  ownVerdictAdded,
  NO_OUTCOMES_ADDED,
  memoryFromJson,
  type MemoryJson,
  type SubjectWithMemory,
} from './subject-memory.ts';

export type RatingInput = { workspaceId: number; apiKeyId: number; ip: string; rating: number; note: string };
/** A stored rating with its subject and the subject's memory after the write, as the write returns it (so answering needs no second read). */
export type RatingRow = Rating & { subject: SubjectWithMemory };

type Stored = Rating & { subjectKey: string; subjectCreatedAt: Date; memory: MemoryJson };

/** A rating value's own-verdict weight (scoring/own-verdict.ts), as a SQL expression over "rating". */
const weightOf = (value: -1 | 1) => ownItemWeight({ type: 'rating', rating: value, at: new Date(0), reporter: '' });
const RATING_WEIGHT = Prisma.sql`(CASE rating."rating" WHEN -1 THEN ${weightOf(-1)}::float8 WHEN 1 THEN ${weightOf(1)}::float8 ELSE 0::float8 END)`;

/** Per subject: its ratings of this statement by value, and the latest of them (the highest id). */
const RATINGS_ADDED = Prisma.sql`
  SELECT "subjectId" AS subject_id, count(*) FILTER (WHERE "rating" = 1) AS good, count(*) FILTER (WHERE "rating" = 0) AS neutral,
         count(*) FILTER (WHERE "rating" = -1) AS bad, 0 AS reports, max("id") AS last_id,
         (array_agg("rating" ORDER BY "id" DESC))[1] AS last_rating, (array_agg("note" ORDER BY "id" DESC))[1] AS last_note,
         (array_agg("createdAt" ORDER BY "id" DESC))[1] AS last_at,
         ${ownVerdictAdded(RATING_WEIGHT, Prisma.sql`rating."createdAt"`, Prisma.sql`false`)},
         ${NO_OUTCOMES_ADDED}
  FROM rating GROUP BY "subjectId"`;

/** Rows that carry the same values are interchangeable answers: they are matched to callers by these. */
const identity = (r: { workspaceId: number; apiKeyId: number | null; rating: number; note: string }, ip: string) =>
  `${r.workspaceId}|${r.apiKeyId}|${r.rating}|${ip}|${r.note}`;

/**
 * One statement for many ratings (data-modifying CTEs): each distinct (workspace, IP) subject
 * node is found or created once, then every rating is inserted and added to its subject's memory
 * (subject-memory.ts).
 */
async function storeRatings(
  prisma: Pick<PrismaClient, '$queryRaw'>,
  inputs: readonly RatingInput[],
): Promise<Stored[]> {
  const col = <T>(f: (r: RatingInput) => T): T[] => inputs.map(f);
  return prisma.$queryRaw<Stored[]>`-- prepared
    WITH input AS (
      SELECT * FROM unnest(${col((r) => r.workspaceId)}::int[], ${col((r) => r.ip)}::text[], ${col((r) => r.apiKeyId)}::int[],
                           ${col((r) => r.rating)}::int[], ${col((r) => r.note)}::text[])
        WITH ORDINALITY AS t(ws, ip, api_key, rating, note, ord)),
    -- Inserted (and so locked) in ("workspaceId", kind, key) order, as the report statement does:
    -- DISTINCT alone gives no order, and two statements locking shared subjects in different
    -- orders deadlock (40P01).
    subject AS (
      INSERT INTO "Subject" ("workspaceId", "kind", "key")
      SELECT DISTINCT ws, 'ipaddress', ip FROM input ORDER BY ws, ip
      ON CONFLICT ("workspaceId", "kind", "key") DO UPDATE SET "kind" = EXCLUDED."kind"
      RETURNING id, "workspaceId", "key", "createdAt"),
    -- inserted in arrival order, so ids (and with them an IP's "last rating") follow the order the calls came in
    rating AS (
      INSERT INTO "Rating" ("workspaceId", "subjectId", "apiKeyId", "rating", "note")
      SELECT input.ws, subject.id, input.api_key, input.rating, input.note
        FROM input JOIN subject ON subject."workspaceId" = input.ws AND subject."key" = input.ip
        ORDER BY input.ord
      RETURNING *),
    memory AS (${addToMemory(RATINGS_ADDED)})
    SELECT rating.*, subject."key" AS "subjectKey", subject."createdAt" AS "subjectCreatedAt", row_to_json(memory) AS memory
      FROM rating JOIN subject ON subject.id = rating."subjectId" JOIN memory ON memory."subjectId" = rating."subjectId"
      ORDER BY rating.id`;
}

/** One row per input, matched by value (no reliance on the order RETURNING gives). */
function answersFor(inputs: readonly RatingInput[], stored: readonly Stored[]): RatingRow[] {
  const byIdentity = new Map<string, RatingRow[]>();
  for (const { subjectKey, subjectCreatedAt, memory, ...rating } of stored) {
    const subject: SubjectWithMemory = {
      id: rating.subjectId,
      workspaceId: rating.workspaceId,
      kind: 'ipaddress',
      key: subjectKey,
      createdAt: subjectCreatedAt,
      memory: memoryFromJson(memory),
    };
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

/** The rating statement on a client (or a transaction): one statement, one row per input. */
export function ratingStatement(
  prisma: Pick<PrismaClient, '$queryRaw'>,
): BatchStatement<RatingInput, Stored[], RatingRow> {
  return { write: (inputs) => storeRatings(prisma, inputs), answers: answersFor };
}

export class RatingBatcher extends GroupCommit<RatingInput, Stored[], RatingRow> {
  constructor(
    prisma: Pick<PrismaClient, '$queryRaw'>,
    maxInFlight?: number,
    maxBatch?: number,
    onBatch?: (size: number) => void,
  ) {
    super(ratingStatement(prisma), maxInFlight, maxBatch, onBatch);
  }
}
