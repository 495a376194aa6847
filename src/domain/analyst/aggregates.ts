import type { PrismaClient } from '../../generated/prisma/client.ts';

/**
 * Aggregates over one workspace's reports. These are raw SQL (GROUP BY a UTC day, a UNION of
 * main and related subjects), which the scoped Prisma client cannot see into, so each takes
 * the workspace id explicitly and puts it in every table it reads.
 */
export const MAX_WINDOW_DAYS = 366;
export type OutcomeDay = { day: string; outcomeCode: string; count: number };

export async function reportCountsByOutcome(prisma: PrismaClient, workspaceId: number, from: Date, to: Date): Promise<OutcomeDay[]> {
  const rows = await prisma.$queryRawUnsafe<Array<{ day: string; outcomeCode: string; count: number }>>(
    `SELECT to_char("createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, "outcomeCode", count(*)::int AS count
       FROM "Report" WHERE "workspaceId" = $1 AND "createdAt" >= $2 AND "createdAt" < $3
      GROUP BY 1, 2 ORDER BY 1, 2`, workspaceId, from, to);
  return rows.map((r) => ({ day: r.day, outcomeCode: r.outcomeCode, count: Number(r.count) }));
}

export type SubjectCount = { subjectId: number; reports: number };

/**
 * Subjects named by the most reports (as main or related subject), ties by oldest subject.
 * The UNION already makes (report, subject) pairs distinct (a subject linked under two roles, or
 * linked and main subject, is one pair), so a plain count(*) per subject counts distinct reports:
 * one hash aggregate, grouped before the join to Subject (a count(DISTINCT …) after the join
 * sorted every pair again, spilling to disk once the workspace held some tens of thousands).
 */
export async function topSubjects(prisma: PrismaClient, workspaceId: number, limit: number, kind: string | null): Promise<SubjectCount[]> {
  const rows = await prisma.$queryRawUnsafe<Array<{ id: number; reports: number }>>(
    `SELECT s.id, m.reports::int AS reports
       FROM (SELECT u.subject_id, count(*) AS reports
               FROM (SELECT r.id AS report_id, r."subjectId" AS subject_id FROM "Report" r WHERE r."workspaceId" = $1
                     UNION
                     SELECT l."reportId", l."subjectId" FROM "ReportLink" l JOIN "Report" r ON r.id = l."reportId" WHERE r."workspaceId" = $1) u
              GROUP BY u.subject_id) m
       JOIN "Subject" s ON s.id = m.subject_id
      WHERE s."workspaceId" = $1 AND ($2::text IS NULL OR s.kind = $2::text)
      ORDER BY m.reports DESC, s.id ASC LIMIT $3`, workspaceId, kind, limit);
  return rows.map((r) => ({ subjectId: Number(r.id), reports: Number(r.reports) }));
}
