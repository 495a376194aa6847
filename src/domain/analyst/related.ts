import type { PrismaClient } from '../../generated/prisma/client.ts';
import { turnOver } from '../../platform/event-loop-turn.ts';

/** A subject co-linked with another through shared reports. */
export type RelatedSubject = { subjectId: number; roles: string[]; sharedReports: number };

/** Reports read per batch: a subject in thousands of reports shows its most frequent partners among the newest. */
export const RELATED_REPORT_SCAN = 2000;
export const RELATED_LIMIT = 50;

/**
 * For a batch of subjects, the subjects their reports link, in one query: the newest reports that
 * name any of them (as main or related subject) with all their links. Raw SQL, so the workspace is
 * put explicitly in every table read, like the aggregates.
 *
 * Each of the two ways a report names a subject is read newest-first through its own index
 * (Report by subjectId, ReportLink by subjectId) and cut to the scan size before the two are
 * merged, so the cost follows the subjects' own reports, not the table: the former single
 * "subjectId IN … OR EXISTS(link)" filter could use no index and walked the whole Report table
 * backwards by id whenever a subject had fewer reports than the scan size.
 */
export async function relatedSubjects(prisma: PrismaClient, workspaceId: number, subjectIds: readonly number[]): Promise<RelatedSubject[][]> {
  const ids = [...new Set(subjectIds)];
  const scan = RELATED_REPORT_SCAN * Math.min(ids.length, 10);
  const rows = await prisma.$queryRawUnsafe<Array<{ id: number; subjectId: number; links: unknown }>>(
    `WITH picked AS (
       SELECT r.id, r."subjectId" FROM "Report" r
        WHERE r."workspaceId" = $1 AND r.id IN (
              (SELECT m.id FROM "Report" m WHERE m."workspaceId" = $1 AND m."subjectId" = ANY($2::int[]) ORDER BY m.id DESC LIMIT $3)
              UNION ALL
              (SELECT DISTINCT l."reportId" FROM "ReportLink" l JOIN "Report" lr ON lr.id = l."reportId"
                WHERE lr."workspaceId" = $1 AND l."subjectId" = ANY($2::int[]) ORDER BY l."reportId" DESC LIMIT $3))
        ORDER BY r.id DESC LIMIT $3)
     SELECT p.id, p."subjectId",
            COALESCE((SELECT json_agg(json_build_object('subjectId', l."subjectId", 'role', l.role)) FROM "ReportLink" l WHERE l."reportId" = p.id), '[]'::json) AS links
       FROM picked p ORDER BY p.id DESC`, workspaceId, ids, scan);
  const reports = rows.map((r) => ({
    id: Number(r.id), subjectId: Number(r.subjectId),
    links: (typeof r.links === 'string' ? JSON.parse(r.links) : r.links) as Array<{ subjectId: number; role: string }>,
  }));
  const wanted = new Set(ids);
  const bySubject = new Map<number, Map<number, { roles: Set<string>; reports: Set<number> }>>();
  // Tallying is quadratic in a report's links (up to 51 members each): a page of subjects named by hundreds of
  // long reports is millions of steps, so it gives the event loop its turns (platform/event-loop-turn.ts).
  for (const r of reports) {
    await turnOver();
    const members = [{ subjectId: r.subjectId, role: 'subject' }, ...r.links];
    for (const self of new Set(members.map((m) => m.subjectId))) {
      if (!wanted.has(self)) continue;
      let partners = bySubject.get(self);
      if (!partners) bySubject.set(self, (partners = new Map()));
      for (const m of members) {
        if (m.subjectId === self) continue;
        let p = partners.get(m.subjectId);
        if (!p) partners.set(m.subjectId, (p = { roles: new Set(), reports: new Set() }));
        p.roles.add(m.role);
        p.reports.add(r.id);
      }
    }
  }
  const answers: RelatedSubject[][] = [];
  for (const id of subjectIds) {
    await turnOver();
    answers.push([...(bySubject.get(id) ?? new Map()).entries()]
      .map(([subjectId, p]) => ({ subjectId, roles: [...p.roles].sort(), sharedReports: p.reports.size }))
      .sort((a, b) => b.sharedReports - a.sharedReports || a.subjectId - b.subjectId)
      .slice(0, RELATED_LIMIT));
  }
  return answers;
}
