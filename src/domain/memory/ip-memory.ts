import type { PrismaClient } from '../../generated/prisma/client.ts';

/** What a workspace itself wrote about one IP, shown in its score responses. */
export type IpMemory = {
  goodRatings: number;
  neutralRatings: number;
  badRatings: number;
  lastRating: { rating: number; note: string; createdAt: string } | null;
  /** Reports naming the IP, as their subject or as a related subject. */
  reports: number;
};

const EMPTY: IpMemory = Object.freeze({ goodRatings: 0, neutralRatings: 0, badRatings: 0, lastRating: null, reports: 0 });

/**
 * Reads a workspace's own memory of an IP without a query per score call:
 * - `known` holds every (workspace, IP) that has a subject node at all, loaded at start and
 *   then followed incrementally (new subject ids since the last poll), so the common case —
 *   an IP the workspace never wrote about — is answered from memory;
 * - known IPs are read with one query and cached for `ttlMs`; a write through this process
 *   invalidates its entry at once, other processes' writes show within `ttlMs` (counts) and
 *   one poll interval (new IPs). Concurrent misses for one key share one query.
 */
export class IpMemoryCache {
  private entries = new Map<string, { at: number; value: IpMemory }>();
  private inFlight = new Map<string, Promise<IpMemory>>();
  private known = new Set<string>();
  private lastSubjectId = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly prisma: PrismaClient, private readonly ttlMs = 5_000, private readonly max = 100_000, private readonly now = Date.now) {}

  /** Loads (or catches up with) the set of IP subjects; call once before serving, then `follow`. */
  async catchUp(): Promise<void> {
    for (;;) {
      const rows = await this.prisma.$queryRaw<Array<{ id: number; workspaceId: number; key: string }>>`
        SELECT id, "workspaceId", key FROM "Subject" WHERE kind = 'ipaddress' AND id > ${this.lastSubjectId} ORDER BY id LIMIT 50000`;
      for (const r of rows) this.known.add(`${r.workspaceId}|${r.key}`);
      if (rows.length > 0) this.lastSubjectId = rows[rows.length - 1]!.id;
      if (rows.length < 50000) return;
    }
  }

  follow(intervalMs: number, onError: (e: unknown) => void) {
    this.timer = setInterval(() => { this.catchUp().catch(onError); }, intervalMs);
    this.timer.unref();
  }

  stop() { if (this.timer) clearInterval(this.timer); }

  /** A write through this process: the IP is known and its cached memory is stale. */
  noteWrite(workspaceId: number, ip: string) {
    const key = `${workspaceId}|${ip}`;
    this.known.add(key);
    this.entries.delete(key);
  }

  async get(workspaceId: number, ip: string): Promise<IpMemory> {
    const key = `${workspaceId}|${ip}`;
    if (!this.known.has(key)) return EMPTY;
    const hit = this.entries.get(key);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.load(workspaceId, ip).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    const value = await pending;
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { at: this.now(), value });
    return value;
  }

  private async load(workspaceId: number, ip: string): Promise<IpMemory> {
    const rows = await this.prisma.$queryRaw<Array<{ good: number; neutral: number; bad: number; reports: number; last_rating: number | null; last_note: string | null; last_at: Date | null }>>`-- prepared
      SELECT
        (SELECT count(*)::int FROM "Rating" r WHERE r."subjectId" = s.id AND r.rating = 1) AS good,
        (SELECT count(*)::int FROM "Rating" r WHERE r."subjectId" = s.id AND r.rating = 0) AS neutral,
        (SELECT count(*)::int FROM "Rating" r WHERE r."subjectId" = s.id AND r.rating = -1) AS bad,
        -- a report about the IP or naming it as a related subject, counted once; a UNION of two index
        -- lookups (an OR with the IN list made PostgreSQL scan every report on each call)
        (SELECT count(*)::int FROM (SELECT p.id FROM "Report" p WHERE p."subjectId" = s.id
                                    UNION SELECT l."reportId" FROM "ReportLink" l WHERE l."subjectId" = s.id) AS about) AS reports,
        last.rating AS last_rating, last.note AS last_note, last."createdAt" AS last_at
      FROM "Subject" s
      LEFT JOIN LATERAL (SELECT rating, note, "createdAt" FROM "Rating" r WHERE r."subjectId" = s.id ORDER BY r.id DESC LIMIT 1) last ON true
      WHERE s."workspaceId" = ${workspaceId} AND s.kind = 'ipaddress' AND s.key = ${ip}`;
    const row = rows[0];
    if (!row) return EMPTY;
    return {
      goodRatings: row.good, neutralRatings: row.neutral, badRatings: row.bad,
      lastRating: row.last_rating === null ? null : { rating: row.last_rating, note: row.last_note ?? '', createdAt: new Date(row.last_at!).toISOString() },
      reports: row.reports,
    };
  }
}
