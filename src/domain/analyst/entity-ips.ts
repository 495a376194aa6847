import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { DimensionCode, NetworkIndex } from '../network/types.ts';
import { currentWork, detachedFromWork, type WorkBudget } from '../../platform/work-budget.ts';

/**
 * Which of a workspace's IP address subjects fall in each dimension entity (`ips` of an entity),
 * kept in memory per workspace: built at the workspace's first lookup, then extended by each
 * lookup with the subjects added since (one indexed query that usually returns nothing). A
 * lookup is then a map read, where it used to read and resolve up to 20,000 subjects every time.
 *
 * - Work per step is bounded: subjects are read and resolved `CHUNK` at a time, with a database
 *   round trip between chunks, so building a large workspace never holds the event loop long.
 * - Fresh: a lookup waits for a read that started after it was made, so it sees every subject
 *   committed before it (concurrent lookups share one read).
 * - A subject id is taken from a sequence before its transaction commits, so a smaller id can
 *   become visible after a larger one was read. Rows younger than `SETTLE_SECONDS` are indexed
 *   but read again next time (each indexed once): the high-water mark only passes settled rows.
 * - Bounded memory: the first `IPS_INDEX_LIMIT` IP subjects (oldest first) of a workspace are
 *   indexed; at most `maxSubjects` over all workspaces, least recently used dropped first.
 * - Metered: the read is shared by every lookup waiting for it, so it runs as no request's work (a request answered
 *   meanwhile does not fail it for the others); each chunk's rows are charged to the budget of every request
 *   waiting (work-budget.ts), a request whose work ends stops waiting at once with its refusal, and the read stops
 *   between chunks once nobody waits (the next lookup goes on from where it stopped).
 * Every subject has evidence: subjects are only stored with a report, mention or rating, and
 * evidence is never deleted.
 */
export const IPS_INDEX_LIMIT = 20_000;
const CHUNK = 500;
const SETTLE_SECONDS = 5;

type WorkspaceIndex = {
  /** Highest id read whose row was settled: every IP subject at or below it is indexed. */
  settledUpTo: number;
  /** Ids above settledUpTo already indexed (re-read until they settle). */
  fresh: Set<number>;
  count: number;
  byEntity: Map<string, number[]>;
  /** The read that has not started yet: a lookup arriving now joins it. */
  queued: Promise<void> | null;
  /** The budgets of the requests waiting for the read (none: a lookup outside any request). */
  waiting: Set<WorkBudget | null>;
  running: Promise<void>;
};

export class EntityIpIndex {
  private readonly workspaces = new Map<number, WorkspaceIndex>();

  constructor(
    private readonly prisma: PrismaClient,
    private readonly network: NetworkIndex,
    private readonly maxSubjects = 10 * IPS_INDEX_LIMIT,
  ) {}

  /** Ids (ascending) of the workspace's IP subjects that resolve into the entity (a copy: later reads do not move it). */
  async ids(workspaceId: number, code: DimensionCode, key: string): Promise<number[]> {
    const w = this.touch(workspaceId);
    const work = currentWork() ?? null;
    w.waiting.add(work);
    try {
      const read = this.catchUp(workspaceId, w);
      if (work) {
        const ended = await Promise.race([read, work.ended]);
        if (ended instanceof Error) throw ended;
      } else await read;
    } finally {
      w.waiting.delete(work);
    }
    return w.byEntity.get(`${code}\u0000${key}`)?.slice() ?? [];
  }

  private touch(workspaceId: number): WorkspaceIndex {
    let w = this.workspaces.get(workspaceId);
    if (w)
      this.workspaces.delete(workspaceId); // re-inserted last: the map's order is least recently used first
    else
      w = {
        settledUpTo: 0,
        fresh: new Set(),
        count: 0,
        byEntity: new Map(),
        queued: null,
        running: Promise.resolve(),
        waiting: new Set(),
      };
    this.workspaces.set(workspaceId, w);
    return w;
  }

  private catchUp(workspaceId: number, w: WorkspaceIndex): Promise<void> {
    if (w.queued) return w.queued;
    const next = w.running
      .catch(() => {})
      .then(() => {
        w.queued = null; // reading from here on: a later lookup needs a read of its own
        return detachedFromWork(() => this.readNew(workspaceId, w));
      });
    w.queued = next;
    w.running = next;
    return next;
  }

  private async readNew(workspaceId: number, w: WorkspaceIndex): Promise<void> {
    for (let after = w.settledUpTo; w.count < IPS_INDEX_LIMIT; ) {
      const rows = await this.prisma.$queryRaw<Array<{ id: number; key: string; settled: boolean }>>`
        SELECT id, key, "createdAt" < now() - make_interval(secs => ${SETTLE_SECONDS}) AS settled FROM "Subject"
         WHERE "workspaceId" = ${workspaceId} AND kind = 'ipaddress' AND id > ${after}
         ORDER BY id LIMIT ${CHUNK}`;
      let settling = true;
      for (const row of rows) {
        const id = Number(row.id);
        if (!w.fresh.has(id) && w.count < IPS_INDEX_LIMIT) this.add(w, id, row.key);
        if (settling && row.settled) {
          w.settledUpTo = id;
          w.fresh.delete(id);
        } else {
          settling = false;
          w.fresh.add(id);
        }
      }
      if (rows.length < CHUNK || !this.charged(w, rows.length)) break;
      after = Number(rows[rows.length - 1]!.id);
    }
    this.evict();
  }

  /** Charges a chunk's rows to every request waiting; false once none is left waiting (the read may stop). */
  private charged(w: WorkspaceIndex, rows: number): boolean {
    for (const work of w.waiting) {
      try {
        work?.charge(rows); // null: a lookup outside any request, which waits for the whole read
      } catch {
        w.waiting.delete(work); // its budget is spent or its deadline passed: it stops waiting (ids() throws its refusal)
      }
    }
    return w.waiting.size > 0;
  }

  private add(w: WorkspaceIndex, id: number, ip: string): void {
    let dimensions;
    try {
      dimensions = this.network.resolve(ip).dimensions;
    } catch {
      return;
    } // not an IP: in no entity
    for (const d of dimensions) {
      if (!d.entity) continue;
      const k = `${d.code}\u0000${d.entity.key}`;
      const list = w.byEntity.get(k);
      if (list) insertSorted(list, id);
      else w.byEntity.set(k, [id]);
    }
    w.count++;
  }

  private evict(): void {
    let total = 0;
    for (const w of this.workspaces.values()) total += w.count;
    for (const [id, w] of this.workspaces) {
      if (total <= this.maxSubjects || this.workspaces.size === 1) return;
      this.workspaces.delete(id);
      total -= w.count;
    }
  }
}

/** Ids arrive in ascending order, except one that became visible late (see above): kept sorted either way. */
function insertSorted(list: number[], id: number): void {
  if (list.length === 0 || list[list.length - 1]! < id) {
    list.push(id);
    return;
  }
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  if (list[lo] !== id) list.splice(lo, 0, id);
}
