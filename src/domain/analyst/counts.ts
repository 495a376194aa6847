import type { PrismaClient } from '../../generated/prisma/client.ts';

/** What a subject's connections count: reports about it, links naming it, ratings of it. */
export type SubjectRowCount = 'reports' | 'mentions' | 'ratings';

/**
 * Rows per subject for a batch of subjects, in one grouped query that reads only those subjects'
 * rows (through the subjectId indexes). `db` must be the workspace-scoped client, so only the
 * caller's rows are counted. Subjects without rows are absent from the map.
 */
export async function subjectRowCounts(
  db: PrismaClient,
  what: SubjectRowCount,
  subjectIds: readonly number[],
): Promise<Map<number, number>> {
  const where = { subjectId: { in: [...new Set(subjectIds)] } };
  const rows =
    what === 'reports'
      ? await db.report.groupBy({ by: ['subjectId'], where, _count: { _all: true }, orderBy: { subjectId: 'asc' } })
      : what === 'mentions'
        ? await db.reportLink.groupBy({
            by: ['subjectId'],
            where,
            _count: { _all: true },
            orderBy: { subjectId: 'asc' },
          })
        : await db.rating.groupBy({ by: ['subjectId'], where, _count: { _all: true }, orderBy: { subjectId: 'asc' } });
  return new Map(rows.map((r) => [r.subjectId, r._count._all]));
}
