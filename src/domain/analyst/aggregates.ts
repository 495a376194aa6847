import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Work } from '../../platform/work-budget.ts';

/**
 * Aggregates over one workspace's reports. These are raw SQL (GROUP BY a UTC day, a UNION of
 * main and related subjects), which the scoped Prisma client cannot see into, so each takes
 * the workspace id explicitly and puts it in every table it reads.
 */
export const MAX_WINDOW_DAYS = 366;
export type OutcomeDay = { day: string; outcomeCode: string; count: number };

export async function reportCountsByOutcome(
  prisma: PrismaClient,
  workspaceId: number,
  from: Date,
  to: Date,
): Promise<OutcomeDay[]> {
  const rows = await prisma.$queryRawUnsafe<Array<{ day: string; outcomeCode: string; count: number }>>(
    `SELECT to_char("createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, "outcomeCode", count(*)::int AS count
       FROM "Report" WHERE "workspaceId" = $1 AND "createdAt" >= $2 AND "createdAt" < $3
      GROUP BY 1, 2 ORDER BY 1, 2`,
    workspaceId,
    from,
    to,
  );
  return rows.map((r) => ({ day: r.day, outcomeCode: r.outcomeCode, count: Number(r.count) }));
}

export type SubjectCount = { subjectId: number; reports: number };

/**
 * Reports read per statement by `topSubjects`. On the embedded database a statement runs in the server's own
 * thread and nothing else is answered until it ends: one statement over a whole workspace of 10,000 reports with 50
 * links each took ~570 ms of CPU, and thirty aliases queued thirty of them. A chunk of this many reports costs
 * ~13 ms (docs/security.md gives the measurement).
 */
export const TOP_SUBJECTS_CHUNK = 100;

/**
 * Subjects named by the most reports (as main or related subject), ties by oldest subject.
 * The workspace's reports are read in chunks of TOP_SUBJECTS_CHUNK (keyset by id), each chunk counting its
 * distinct (report, subject) pairs per subject (the UNION makes a subject linked under two roles, or linked and
 * main subject, one pair) and the counts summed here. Each chunk's pairs are charged to `work`, which ends the
 * count once the request's budget or deadline is spent, and gives the event loop its turns between chunks. The
 * links are read through their primary key (report id first) by a correlated subquery: a join let the planner
 * read the whole link table for every chunk. Memory: one count per subject of the workspace.
 */
export async function topSubjects(
  prisma: PrismaClient,
  workspaceId: number,
  limit: number,
  kind: string | null,
  work: Work,
): Promise<SubjectCount[]> {
  const counts = new Map<number, number>();
  for (let after = 0; ; ) {
    await work.step(0);
    const rows = await prisma.$queryRawUnsafe<
      Array<{ subject_id: number | null; reports: number; last: number | null }>
    >(
      `WITH picked AS (SELECT id, "subjectId" FROM "Report" WHERE "workspaceId" = $1 AND id > $3 ORDER BY id LIMIT $4),
            pairs AS (SELECT p.id, p."subjectId" AS subject_id FROM picked p
                      UNION
                      SELECT p.id, unnest(ARRAY(SELECT l."subjectId" FROM "ReportLink" l WHERE l."reportId" = p.id)) FROM picked p)
       SELECT NULL::int AS subject_id, count(*)::int AS reports, max(id)::int AS last FROM picked
       UNION ALL
       SELECT c.subject_id, c.reports, NULL FROM (SELECT subject_id, count(*)::int AS reports FROM pairs GROUP BY subject_id) c
        WHERE (SELECT s."workspaceId" = $1 AND ($2::text IS NULL OR s.kind = $2::text) FROM "Subject" s WHERE s.id = c.subject_id)`,
      workspaceId,
      kind,
      after,
      TOP_SUBJECTS_CHUNK,
    );
    let picked = 0;
    let pairs = 0;
    for (const r of rows) {
      if (r.subject_id === null) {
        picked = Number(r.reports);
        after = Number(r.last);
        continue;
      }
      const id = Number(r.subject_id);
      counts.set(id, (counts.get(id) ?? 0) + Number(r.reports));
      pairs += Number(r.reports);
    }
    work.charge(picked + pairs);
    if (picked < TOP_SUBJECTS_CHUNK) break;
  }
  await work.step(counts.size);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, limit)
    .map(([subjectId, reports]) => ({ subjectId, reports }));
}
