import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { SubjectWithMemory } from './subject-memory.ts';
import { NO_OWN_EVIDENCE, type OwnEvidence, type OwnReported } from '../scoring/own-verdict.ts';
import { IpMemoryTable, type IpMemory, type MemoryFields } from './ip-memory-table.ts';
import { TableFollower } from '../../platform/db/table-follower.ts';

export type { IpMemory } from './ip-memory-table.ts';

const EMPTY: IpMemory = Object.freeze({
  goodRatings: 0,
  neutralRatings: 0,
  badRatings: 0,
  lastRating: null,
  reports: 0,
});

const NOTHING_OWN_REPORTED: OwnReported = Object.freeze({ outcomes: Object.freeze([]), any: false, lastAt: null });

/** How often a process reads the memory rows other processes changed: the bound on how late it shows their writes. */
export const IP_MEMORY_FOLLOW_MS = 1_000;
/** Rows read per statement when catching up (the first catch-up reads the whole table). */
const PAGE_ROWS = 20_000;

type ChangedRow = MemoryFields & {
  horizon: bigint;
  workspaceId: number | null;
  key: string;
  subjectId: number;
  writtenXid: bigint;
};

/**
 * Every workspace's memory of every IP it wrote about ("SubjectMemory", subject-memory.ts), held whole in
 * this process, so `score` reads it with two map lookups and no query.
 * - A write through this process applies the rows its statement returned, once committed: its caller's
 *   next score shows it.
 * - Every process follows the table (`follow`, platform/db/table-follower.ts), one query per IP_MEMORY_FOLLOW_MS
 *   whatever the load, so another process's write shows within IP_MEMORY_FOLLOW_MS plus that query's time.
 * - A row is kept only when its revision is newer than the one held, so the two paths may deliver in any order.
 */
export class IpMemoryCache {
  private readonly byWorkspace = new Map<number, IpMemoryTable>();
  private readonly follower: TableFollower<ChangedRow>;

  constructor(prisma: PrismaClient, pageRows = PAGE_ROWS) {
    this.follower = new TableFollower<ChangedRow>(
      {
        page: (after, limit) => prisma.$queryRaw<ChangedRow[]>`-- prepared
          SELECT h.horizon, c.* FROM (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS horizon) h
          LEFT JOIN LATERAL (
            SELECT s."workspaceId", s."key", m."subjectId", m."writtenXid", m."good", m."neutral", m."bad",
                   m."reports", m."lastRatingId", m."lastRating", m."lastNote", m."lastRatedAt", m."revision",
                   m."ownBad", m."ownGood", m."ownBadAt", m."ownGoodAt", m."ownFloorAt", m."outcomes"
            FROM "SubjectMemory" m JOIN "Subject" s ON s."id" = m."subjectId"
            WHERE (m."writtenXid", m."subjectId") > (${after[0]}::bigint, ${after[1]}::int) AND s."kind" = 'ipaddress'
            ORDER BY m."writtenXid", m."subjectId" LIMIT ${limit}) c ON true`,
        position: (r) => (r.workspaceId === null ? null : [BigInt(r.writtenXid), r.subjectId]),
        keep: (r) => this.keep(r.workspaceId!, r.key, r),
      },
      pageRows,
    );
  }

  get(workspaceId: number, ip: string): IpMemory {
    return this.byWorkspace.get(workspaceId)?.get(ip) ?? EMPTY;
  }

  /** The workspace's own-verdict sums for the IP (scoring/own-verdict.ts); NO_OWN_EVIDENCE when it wrote nothing. */
  own(workspaceId: number, ip: string): OwnEvidence {
    return this.byWorkspace.get(workspaceId)?.own(ip) ?? NO_OWN_EVIDENCE;
  }

  /** What the workspace reported about the IP, live (scoring/reported.ts); NOTHING_OWN_REPORTED when it wrote nothing. */
  reported(workspaceId: number, ip: string): OwnReported {
    return this.byWorkspace.get(workspaceId)?.reported(ip) ?? NOTHING_OWN_REPORTED;
  }

  /** The subjects a committed write of this process returned, each with its memory as the write left it. */
  apply(subjects: Iterable<SubjectWithMemory>): void {
    for (const s of subjects) if (s.kind === 'ipaddress') this.keep(s.workspaceId, s.key, s.memory);
  }

  /** Reads the rows changed since the last catch-up (the whole table the first time). */
  catchUp(): Promise<void> {
    return this.follower.catchUp();
  }

  follow(intervalMs: number, onError: (e: unknown) => void) {
    this.follower.follow(intervalMs, onError);
  }

  stop() {
    this.follower.stop();
  }

  private keep(workspaceId: number, ip: string, m: MemoryFields): void {
    let ips = this.byWorkspace.get(workspaceId);
    if (!ips) this.byWorkspace.set(workspaceId, (ips = new IpMemoryTable()));
    ips.keep(ip, m);
  }
}
