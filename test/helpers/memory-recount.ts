import type { PrismaClient } from '../../src/generated/prisma/client.ts';

export type Recounted = {
  subjectId: number;
  good: number;
  neutral: number;
  bad: number;
  reports: number;
  lastRatingId: number | null;
  lastRating: number | null;
  lastNote: string | null;
  lastRatedAt: Date | null;
};

/**
 * A subject's memory counted from its whole history, as the score read did before the memory was
 * maintained (each report once, as its subject or related in any roles; the last rating is the highest id):
 * the oracle the maintained "SubjectMemory" rows are checked against.
 */
export async function recountMemory(
  prisma: Pick<PrismaClient, '$queryRawUnsafe'>,
  subjectIds: number[],
): Promise<Recounted[]> {
  return prisma.$queryRawUnsafe<Recounted[]>(
    `
    SELECT s.id AS "subjectId",
      (SELECT count(*)::int FROM "Rating" r WHERE r."subjectId" = s.id AND r.rating = 1) AS good,
      (SELECT count(*)::int FROM "Rating" r WHERE r."subjectId" = s.id AND r.rating = 0) AS neutral,
      (SELECT count(*)::int FROM "Rating" r WHERE r."subjectId" = s.id AND r.rating = -1) AS bad,
      (SELECT count(*)::int FROM (SELECT p.id FROM "Report" p WHERE p."subjectId" = s.id
                                  UNION SELECT l."reportId" FROM "ReportLink" l WHERE l."subjectId" = s.id) AS about) AS reports,
      last.id AS "lastRatingId", last.rating AS "lastRating", last.note AS "lastNote", last."createdAt" AS "lastRatedAt"
    FROM "Subject" s
    LEFT JOIN LATERAL (SELECT id, rating, note, "createdAt" FROM "Rating" r WHERE r."subjectId" = s.id ORDER BY r.id DESC LIMIT 1) last ON true
    WHERE s.id = ANY($1::int[]) ORDER BY s.id`,
    subjectIds,
  );
}

/** The maintained rows of the same subjects, in the same shape (a subject never written about has none). */
export async function maintainedMemory(
  prisma: Pick<PrismaClient, '$queryRawUnsafe'>,
  subjectIds: number[],
): Promise<Recounted[]> {
  return prisma.$queryRawUnsafe<Recounted[]>(
    `
    SELECT s.id AS "subjectId", coalesce(m.good, 0) AS good, coalesce(m.neutral, 0) AS neutral, coalesce(m.bad, 0) AS bad,
      coalesce(m.reports, 0) AS reports, m."lastRatingId", m."lastRating", m."lastNote", m."lastRatedAt"
    FROM "Subject" s LEFT JOIN "SubjectMemory" m ON m."subjectId" = s.id
    WHERE s.id = ANY($1::int[]) ORDER BY s.id`,
    subjectIds,
  );
}
