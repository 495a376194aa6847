import type { PrismaClient } from '../../generated/prisma/client.ts';

/** A subject co-linked with another through shared reports. */
export type RelatedSubject = { subjectId: number; roles: string[]; sharedReports: number };

/** Reports read per batch: a subject in thousands of reports shows its most frequent partners among the newest. */
export const RELATED_REPORT_SCAN = 2000;
export const RELATED_LIMIT = 50;

/**
 * For a batch of subjects, the subjects their reports link, in one query: reports that name any
 * of them (as main or related subject) with all their links. `db` must be the workspace-scoped
 * client, so only the caller's reports are read.
 */
export async function relatedSubjects(db: PrismaClient, subjectIds: readonly number[]): Promise<RelatedSubject[][]> {
  const ids = [...new Set(subjectIds)];
  const reports = await db.report.findMany({
    where: { OR: [{ subjectId: { in: ids } }, { links: { some: { subjectId: { in: ids } } } }] },
    select: { id: true, subjectId: true, links: { select: { subjectId: true, role: true } } },
    orderBy: { id: 'desc' },
    take: RELATED_REPORT_SCAN * Math.min(ids.length, 10),
  });
  const wanted = new Set(ids);
  const bySubject = new Map<number, Map<number, { roles: Set<string>; reports: Set<number> }>>();
  for (const r of reports) {
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
  return subjectIds.map((id) => [...(bySubject.get(id) ?? new Map()).entries()]
    .map(([subjectId, p]) => ({ subjectId, roles: [...p.roles].sort(), sharedReports: p.reports.size }))
    .sort((a, b) => b.sharedReports - a.sharedReports || a.subjectId - b.subjectId)
    .slice(0, RELATED_LIMIT));
}
