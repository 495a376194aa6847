import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Work } from '../../platform/work-budget.ts';

/** A subject co-linked with another through shared reports. */
export type RelatedSubject = { subjectId: number; roles: string[]; sharedReports: number };

/** Reports read per batch: a subject in thousands of reports shows its most frequent partners among the newest. */
export const RELATED_REPORT_SCAN = 2000;
export const RELATED_LIMIT = 50;
/**
 * Reports read per query: the rows of one chunk are tallied and dropped before the next is read. On the embedded
 * database a statement holds the server's thread: a chunk of 500 reports with 50 links each took ~80 ms of CPU,
 * one of 100 ~18 ms (docs/security.md).
 */
export const RELATED_CHUNK = 100;
/**
 * Units charged to the request's meter for each pair the tally keeps (one per pair combined besides): the
 * meter's budget thus also bounds the tally's memory, at most maxWorkUnits / KEPT_PAIR_UNITS pairs
 * (docs/security.md gives the ceiling in bytes).
 */
export const KEPT_PAIR_UNITS = 10;

/** One pair's tally: how many reports name both (each once: `lastReport` is the last one counted) and the partner's roles. */
type Pair = { count: number; lastReport: number; roles: string[] };
type Row = { id: number; subjectId: number; links: unknown };

/**
 * For a batch of subjects, the subjects their reports link: the newest reports that name any of them (as
 * main or related subject) with all their links. Raw SQL, so the workspace is put explicitly in every table
 * read, like the aggregates.
 *
 * Each of the two ways a report names a subject is read newest-first through its own index
 * (Report by subjectId, ReportLink by subjectId) and cut to the chunk size before the two are
 * merged, so the cost follows the subjects' own reports, not the table: the former single
 * "subjectId IN … OR EXISTS(link)" filter could use no index and walked the whole Report table
 * backwards by id whenever a subject had fewer reports than the scan size.
 *
 * What it costs is what the data makes it cost (a report names up to 51 subjects, so one report can combine
 * 2,550 pairs): every row read and every pair combined is charged to `work`, which ends the tally once the
 * request's budget or deadline is spent, and gives the event loop and heavier work their turns between
 * steps. Memory is bounded too: reports are read a chunk at a time, and a pair keeps a count, not the set of
 * its reports (a report's pairs are counted once each by remembering the last report counted).
 */
export async function relatedSubjects(
  prisma: PrismaClient,
  workspaceId: number,
  subjectIds: readonly number[],
  work: Work,
): Promise<RelatedSubject[][]> {
  const ids = [...new Set(subjectIds)];
  const scan = RELATED_REPORT_SCAN * Math.min(ids.length, 10);
  const wanted = new Set(ids);
  const bySubject = new Map<number, Map<number, Pair>>();
  let before = 2 ** 31 - 1; // report ids are int4: every one is below it
  for (let read = 0; read < scan; ) {
    const limit = Math.min(RELATED_CHUNK, scan - read);
    await work.step(0);
    const rows = await readChunk(prisma, workspaceId, ids, limit, before);
    read += rows.length;
    for (const row of rows) {
      const links = (typeof row.links === 'string' ? JSON.parse(row.links) : row.links) as Array<{
        subjectId: number;
        role: string;
      }>;
      const reportId = Number(row.id);
      const members = [{ subjectId: Number(row.subjectId), role: 'subject' }, ...links];
      await work.step(1 + links.length);
      tallyReport(bySubject, wanted, reportId, members, work);
      before = reportId;
    }
    if (rows.length < limit) break;
  }
  const answers: RelatedSubject[][] = [];
  for (const id of subjectIds) {
    const partners = bySubject.get(id);
    await work.step(partners?.size ?? 0);
    answers.push(
      [...(partners ?? new Map<number, Pair>()).entries()]
        .map(([subjectId, p]) => ({ subjectId, roles: [...p.roles].sort(), sharedReports: p.count }))
        .sort((a, b) => b.sharedReports - a.sharedReports || a.subjectId - b.subjectId)
        .slice(0, RELATED_LIMIT),
    );
  }
  return answers;
}

/** Counts one report's pairs: each wanted member with every other member (quadratic in the report's links). */
function tallyReport(
  bySubject: Map<number, Map<number, Pair>>,
  wanted: Set<number>,
  reportId: number,
  members: Array<{ subjectId: number; role: string }>,
  work: Work,
): void {
  const done = new Set<number>(); // a subject named twice (main subject and link, or two roles) pairs once
  for (const { subjectId: self } of members) {
    if (!wanted.has(self) || done.has(self)) continue;
    done.add(self);
    let partners = bySubject.get(self);
    if (!partners) bySubject.set(self, (partners = new Map()));
    let kept = 0;
    for (const m of members) {
      if (m.subjectId === self) continue;
      let p = partners.get(m.subjectId);
      if (!p) {
        partners.set(m.subjectId, (p = { count: 0, lastReport: -1, roles: [] }));
        kept++;
      }
      if (p.lastReport !== reportId) {
        p.lastReport = reportId;
        p.count++;
      }
      if (!p.roles.includes(m.role)) p.roles.push(m.role);
    }
    work.charge(members.length + kept * KEPT_PAIR_UNITS);
  }
}

function readChunk(
  prisma: PrismaClient,
  workspaceId: number,
  ids: number[],
  limit: number,
  before: number,
): Promise<Row[]> {
  return prisma.$queryRawUnsafe<Row[]>(
    `WITH picked AS (
       SELECT r.id, r."subjectId" FROM "Report" r
        WHERE r."workspaceId" = $1 AND r.id IN (
              (SELECT m.id FROM "Report" m
                WHERE m."workspaceId" = $1 AND m."subjectId" = ANY($2::int[]) AND m.id < $4 ORDER BY m.id DESC LIMIT $3)
              UNION ALL
              (SELECT DISTINCT l."reportId" FROM "ReportLink" l JOIN "Report" lr ON lr.id = l."reportId"
                WHERE lr."workspaceId" = $1 AND l."subjectId" = ANY($2::int[]) AND l."reportId" < $4
                ORDER BY l."reportId" DESC LIMIT $3))
        ORDER BY r.id DESC LIMIT $3)
     SELECT p.id, p."subjectId",
            COALESCE((SELECT json_agg(json_build_object('subjectId', l."subjectId", 'role', l.role)) FROM "ReportLink" l WHERE l."reportId" = p.id), '[]'::json) AS links
       FROM picked p ORDER BY p.id DESC`,
    workspaceId,
    ids,
    limit,
    before,
  );
}
