import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { SubjectWithMemory } from './subject-memory.ts';
import { IpMemoryTable, type IpMemory, type MemoryFields } from './ip-memory-table.ts';

export type { IpMemory } from './ip-memory-table.ts';

const EMPTY: IpMemory = Object.freeze({ goodRatings: 0, neutralRatings: 0, badRatings: 0, lastRating: null, reports: 0 });

/** How often a process reads the memory rows other processes changed: the bound on how late it shows their writes. */
export const IP_MEMORY_FOLLOW_MS = 1_000;
/** Rows read per statement when catching up (the first catch-up reads the whole table). */
const PAGE_ROWS = 20_000;

type ChangedRow = MemoryFields & { horizon: bigint; workspaceId: number | null; key: string; subjectId: number; writtenXid: bigint };

/**
 * Every workspace's memory of every IP it wrote about ("SubjectMemory", subject-memory.ts), held whole in
 * this process, so `score` reads it with two map lookups and no query.
 * - A write through this process applies the rows its statement returned, once committed: its caller's
 *   next score shows it.
 * - Every process follows the table (`follow`), one query per IP_MEMORY_FOLLOW_MS whatever the load: it
 *   reads the rows written by transactions that had not finished when it last looked (their ids at or above
 *   the oldest transaction then running, the snapshot's xmin), so no commit is ever skipped, however late
 *   it lands. Another process's write therefore shows within IP_MEMORY_FOLLOW_MS plus that query's time.
 * - A row is kept only when its revision is newer than the one held, so the two paths may deliver in any
 *   order. While the database is unreachable the copy keeps answering with what it holds.
 */
export class IpMemoryCache {
  private readonly byWorkspace = new Map<number, IpMemoryTable>();
  /** Rows written by transactions with an id at or above this one may not have been read yet. */
  private horizon = 0n;
  private reading: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly prisma: PrismaClient, private readonly pageRows = PAGE_ROWS) {}

  get(workspaceId: number, ip: string): IpMemory {
    return this.byWorkspace.get(workspaceId)?.get(ip) ?? EMPTY;
  }

  /** The subjects a committed write of this process returned, each with its memory as the write left it. */
  apply(subjects: Iterable<SubjectWithMemory>): void {
    for (const s of subjects) if (s.kind === 'ipaddress') this.keep(s.workspaceId, s.key, s.memory);
  }

  /** Reads the rows changed since the last catch-up (the whole table the first time); concurrent calls share one read. */
  catchUp(): Promise<void> {
    this.reading ??= this.readChanges().finally(() => { this.reading = null; });
    return this.reading;
  }

  follow(intervalMs: number, onError: (e: unknown) => void) {
    this.timer = setInterval(() => { this.catchUp().catch(onError); }, intervalMs);
    this.timer.unref();
  }

  stop() { if (this.timer) clearInterval(this.timer); }

  private keep(workspaceId: number, ip: string, m: MemoryFields): void {
    let ips = this.byWorkspace.get(workspaceId);
    if (!ips) this.byWorkspace.set(workspaceId, (ips = new IpMemoryTable()));
    ips.keep(ip, m);
  }

  private async readChanges(): Promise<void> {
    // Keyset over ("writtenXid", "subjectId") from the horizon on; the horizon of the next read is the xmin
    // of this read's FIRST statement (any later commit has an id at or above it).
    let after: [bigint, number] = [this.horizon, 0];
    let next: bigint | null = null;
    for (;;) {
      const rows = await this.prisma.$queryRaw<ChangedRow[]>`-- prepared
        SELECT h.horizon, c.* FROM (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS horizon) h
        LEFT JOIN LATERAL (
          SELECT s."workspaceId", s."key", m."subjectId", m."writtenXid", m."good", m."neutral", m."bad", m."reports",
                 m."lastRatingId", m."lastRating", m."lastNote", m."lastRatedAt", m."revision"
          FROM "SubjectMemory" m JOIN "Subject" s ON s."id" = m."subjectId"
          WHERE (m."writtenXid", m."subjectId") > (${after[0]}::bigint, ${after[1]}::int) AND s."kind" = 'ipaddress'
          ORDER BY m."writtenXid", m."subjectId" LIMIT ${this.pageRows}) c ON true`;
      next ??= BigInt(rows[0]!.horizon);
      for (const r of rows) if (r.workspaceId !== null) this.keep(r.workspaceId, r.key, r);
      const last = rows.at(-1)!;
      if (rows.length < this.pageRows || last.workspaceId === null) break;
      after = [BigInt(last.writtenXid), last.subjectId];
    }
    if (next > this.horizon) this.horizon = next;
  }
}
