/**
 * The database reads of check_block, each bounded by the block before it runs: an IP subject's key is stored as
 * text, which does not sort by address, so every read enters "Subject" through the expression index
 * "Subject_ip_address_idx" on (key::inet, "workspaceId") WHERE kind = 'ipaddress' (its migration) as ONE range,
 * key::inet BETWEEN the block's first and last address. Nothing reads a workspace's other subjects.
 *
 * What the caller may see (the same rule as the publication's layers, publishing/gather.ts): its own workspace's
 * reports (any visibility) and ratings, and every workspace's community-visible reports. A report counts once
 * however many of the block's IPs it names, as main or related subject (the UNION is over report ids).
 * These are raw SQL, which the workspace-scoped client cannot see into, so each names the workspace itself.
 */
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';
import type { CidrBlock } from '../network/block.ts';

export type OutcomeCount = { outcomeCode: string; reports: number };
export type BlockTotals = {
  byOutcome: OutcomeCount[];
  reports: number;
  ratings: { good: number; neutral: number; bad: number };
  firstSeen: Date | null;
  lastSeen: Date | null;
};
export type IpEvidence = {
  ip: string;
  reports: number;
  good: number;
  neutral: number;
  bad: number;
  firstSeen: Date | null;
  lastSeen: Date | null;
};

/** Reports the caller may see, as (id, subject id, outcome, time) rows, naming a subject of `subjects` (a CTE). */
const visibleReports = (workspaceId: number) => Prisma.sql`
  SELECT r.id, r."outcomeCode", r."createdAt", s.key FROM "Report" r JOIN subjects s ON s.id = r."subjectId"
   WHERE r."workspaceId" = ${workspaceId} OR r."effectiveVisibility" = 'community'
  UNION
  SELECT r.id, r."outcomeCode", r."createdAt", s.key FROM "ReportLink" l JOIN subjects s ON s.id = l."subjectId"
    JOIN "Report" r ON r.id = l."reportId"
   WHERE r."workspaceId" = ${workspaceId} OR r."effectiveVisibility" = 'community'`;

const inBlock = (block: CidrBlock) =>
  Prisma.sql`kind = 'ipaddress' AND key::inet BETWEEN ${block.first}::inet AND ${block.last}::inet`;

/** The block's counts by outcome, its ratings by the workspace, and the first and last evidence, over every IP subject in it. */
/** The statements of one block check, each a range of the index; exported so a test can read their plans. */
export const blockStatements = {
  outcomes: (workspaceId: number, block: CidrBlock) => Prisma.sql`
      WITH subjects AS (SELECT id, key FROM "Subject" WHERE ${inBlock(block)}),
           reports AS (SELECT DISTINCT id, "outcomeCode", "createdAt" FROM (${visibleReports(workspaceId)}) v)
      SELECT "outcomeCode", count(*)::int AS reports, min("createdAt") AS first, max("createdAt") AS last
        FROM reports GROUP BY "outcomeCode" ORDER BY "outcomeCode"`,
  ratings: (workspaceId: number, block: CidrBlock) => Prisma.sql`
      SELECT g.rating, count(*)::int AS n, min(g."createdAt") AS first, max(g."createdAt") AS last
        FROM "Subject" s JOIN "Rating" g ON g."subjectId" = s.id
       WHERE ${inBlock(block)} AND s."workspaceId" = ${workspaceId}
       GROUP BY g.rating`,
  /**
   * One page of the IPs in the block the caller may see evidence of (its own subjects, and others' with a
   * community-visible report), in address order after `after` (exclusive; from the block's first address when
   * null), at most `take`: one walk of the index range in address order that stops after `take` distinct IPs.
   * Each EXISTS is read per subject through the subjectId indexes: its OFFSET 0 keeps the planner from turning it
   * into one hashed scan of EVERY community report in the database (which it chose for the linked one).
   */
  page: (workspaceId: number, block: CidrBlock, after: string | null, take: number) => {
    const from =
      after === null ? Prisma.sql`s.key::inet >= ${block.first}::inet` : Prisma.sql`s.key::inet > ${after}::inet`;
    return Prisma.sql`
    SELECT DISTINCT ON (s.key::inet) s.key FROM "Subject" s
     WHERE s.kind = 'ipaddress' AND ${from} AND s.key::inet <= ${block.last}::inet
       AND (s."workspaceId" = ${workspaceId}
            OR EXISTS (SELECT 1 FROM "Report" r WHERE r."subjectId" = s.id AND r."effectiveVisibility" = 'community' OFFSET 0)
            OR EXISTS (SELECT 1 FROM "ReportLink" l JOIN "Report" r ON r.id = l."reportId"
                        WHERE l."subjectId" = s.id AND r."effectiveVisibility" = 'community' OFFSET 0))
     ORDER BY s.key::inet LIMIT ${take}`;
  },
};

/** The block's counts by outcome, its ratings by the workspace, and the first and last evidence, over every IP subject in it. */
export async function blockTotals(prisma: PrismaClient, workspaceId: number, block: CidrBlock): Promise<BlockTotals> {
  const [outcomes, ratings] = await Promise.all([
    prisma.$queryRaw<Array<{ outcomeCode: string; reports: number; first: Date | null; last: Date | null }>>(
      blockStatements.outcomes(workspaceId, block),
    ),
    prisma.$queryRaw<Array<{ rating: number; n: number; first: Date | null; last: Date | null }>>(
      blockStatements.ratings(workspaceId, block),
    ),
  ]);
  const byOutcome = outcomes.map((o) => ({ outcomeCode: o.outcomeCode, reports: Number(o.reports) }));
  const count = (v: number) => Number(ratings.find((r) => Number(r.rating) === v)?.n ?? 0);
  const times = [...outcomes, ...ratings]
    .flatMap((r) => [r.first, r.last])
    .filter((d): d is Date => d !== null)
    .map((d) => new Date(d).getTime());
  return {
    byOutcome,
    reports: byOutcome.reduce((n, o) => n + o.reports, 0),
    ratings: { good: count(1), neutral: count(0), bad: count(-1) },
    firstSeen: times.length ? new Date(Math.min(...times)) : null,
    lastSeen: times.length ? new Date(Math.max(...times)) : null,
  };
}

/** One page of the block's IPs the caller may see, in address order (blockStatements.page). */
export async function blockIpPage(
  prisma: PrismaClient,
  workspaceId: number,
  block: CidrBlock,
  after: string | null,
  take: number,
): Promise<string[]> {
  const rows = await prisma.$queryRaw<Array<{ key: string }>>(blockStatements.page(workspaceId, block, after, take));
  return rows.map((r) => r.key);
}

/** The visible reports and the workspace's ratings of each of a page's IPs (at most one page: read by key). */
export async function ipEvidence(
  prisma: PrismaClient,
  workspaceId: number,
  ips: readonly string[],
): Promise<Map<string, IpEvidence>> {
  const out = new Map<string, IpEvidence>(
    ips.map((ip) => [ip, { ip, reports: 0, good: 0, neutral: 0, bad: 0, firstSeen: null, lastSeen: null }]),
  );
  if (ips.length === 0) return out;
  const [reports, ratings] = await Promise.all([
    prisma.$queryRaw<Array<{ key: string; reports: number; first: Date; last: Date }>>`
      WITH subjects AS (SELECT id, key FROM "Subject" WHERE kind = 'ipaddress' AND key::inet = ANY(${ips as string[]}::inet[]))
      SELECT key, count(DISTINCT id)::int AS reports, min("createdAt") AS first, max("createdAt") AS last
        FROM (${visibleReports(workspaceId)}) v GROUP BY key`,
    prisma.$queryRaw<Array<{ key: string; rating: number; n: number; first: Date; last: Date }>>`
      SELECT s.key, g.rating, count(*)::int AS n, min(g."createdAt") AS first, max(g."createdAt") AS last
        FROM "Subject" s JOIN "Rating" g ON g."subjectId" = s.id
       WHERE s."workspaceId" = ${workspaceId} AND s.kind = 'ipaddress' AND s.key = ANY(${ips as string[]}::text[])
       GROUP BY s.key, g.rating`,
  ]);
  const widen = (e: IpEvidence, first: Date, last: Date) => {
    const f = new Date(first);
    const l = new Date(last);
    if (e.firstSeen === null || f < e.firstSeen) e.firstSeen = f;
    if (e.lastSeen === null || l > e.lastSeen) e.lastSeen = l;
  };
  for (const r of reports) {
    const e = out.get(r.key);
    if (!e) continue;
    e.reports = Number(r.reports);
    widen(e, r.first, r.last);
  }
  for (const g of ratings) {
    const e = out.get(g.key);
    if (!e) continue;
    const n = Number(g.n);
    if (Number(g.rating) === 1) e.good += n;
    else if (Number(g.rating) === 0) e.neutral += n;
    else if (Number(g.rating) === -1) e.bad += n;
    widen(e, g.first, g.last);
  }
  return out;
}
