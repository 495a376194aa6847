/**
 * The latest complete publication, held in memory for scoring.
 *
 * Everything a score call reads lives in ONE immutable snapshot object: the global layer (one
 * Map keyed `code \0 key`) and the contextual layers (a Map per workspace). A caller takes
 * `current()` once and reads only from it, so a refresh swapping in a newer publication
 * mid-call cannot mix two publications in one answer.
 *
 * Loading reads the summaries with one raw SELECT (a single statement is one MVCC snapshot), and
 * checks the row count against the publication's entityCount: pruning by a newer publisher can
 * delete the publication between "which is latest?" and the SELECT, which then returns nothing;
 * the load is simply retried against the new latest.
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { DimensionCode } from '../network/types.ts';
import type { EntitySummary } from '../scoring/evidence.ts';
import type { RiskLevel } from '../scoring/levels.ts';
import { GLOBAL_LAYER } from './gather.ts';
import { latestComplete, type LatestPublication } from './publication-store.ts';

export type PublishedEntity = EntitySummary & { name: string };
export type Lookup = (code: DimensionCode, key: string) => PublishedEntity | undefined;

export type Snapshot = {
  readonly version: number;
  readonly publishedAt: Date | null;
  /** Rows held (global + every contextual layer). */
  readonly size: number;
  global: Lookup;
  /** That workspace's private layer; a lookup that finds nothing when it has none. */
  contextual(workspaceId: number): Lookup;
};

type Row = {
  workspaceId: number; code: string; key: string; name: string; score: number; level: string;
  reports: number; bad: number; neutral: number; good: number; feeds: number;
  reporters: number; firstSeen: Date | null; lastSeen: Date | null;
};

const MAX_LOAD_ATTEMPTS = 5;
const nothing: Lookup = () => undefined;

function lookupOf(map: Map<string, PublishedEntity>): Lookup {
  return (code, key) => map.get(`${code}\u0000${key}`);
}

export function buildSnapshot(version: number, publishedAt: Date | null, rows: readonly Row[]): Snapshot {
  const global = new Map<string, PublishedEntity>();
  const layers = new Map<number, Map<string, PublishedEntity>>();
  for (const r of rows) {
    const entity: PublishedEntity = Object.freeze({
      name: r.name, score: r.score, level: r.level as RiskLevel, reporters: r.reporters,
      firstSeen: r.firstSeen, lastSeen: r.lastSeen,
      counts: Object.freeze({ reports: r.reports, bad_ratings: r.bad, neutral_ratings: r.neutral, good_ratings: r.good, feed_listings: r.feeds }),
    });
    let target = global;
    if (r.workspaceId !== GLOBAL_LAYER) {
      let layer = layers.get(r.workspaceId);
      if (!layer) layers.set(r.workspaceId, (layer = new Map()));
      target = layer;
    }
    target.set(`${r.code}\u0000${r.key}`, entity);
  }
  const contextual = new Map<number, Lookup>([...layers].map(([id, map]) => [id, lookupOf(map)]));
  return Object.freeze({
    version, publishedAt, size: rows.length,
    global: lookupOf(global),
    contextual: (workspaceId: number) => contextual.get(workspaceId) ?? nothing,
  });
}

export const EMPTY_SNAPSHOT: Snapshot = buildSnapshot(0, null, []);

async function readRows(prisma: PrismaClient, publicationId: number): Promise<Row[]> {
  // Counts are read as columns: JSON parsing 100k+ small objects in the driver costs more.
  return prisma.$queryRaw<Row[]>`
    SELECT "workspaceId", "code", "key", "name", "score", "level",
           COALESCE(("counts"->>'reports')::int, 0) AS "reports",
           COALESCE(("counts"->>'bad_ratings')::int, 0) AS "bad",
           COALESCE(("counts"->>'neutral_ratings')::int, 0) AS "neutral",
           COALESCE(("counts"->>'good_ratings')::int, 0) AS "good",
           COALESCE(("counts"->>'feed_listings')::int, 0) AS "feeds",
           "reporters", "firstSeen", "lastSeen"
      FROM "PublishedSummary" WHERE "publicationId" = ${publicationId}`;
}

export class PublicationCache {
  private snapshot: Snapshot = EMPTY_SNAPSHOT;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<boolean> | null = null;

  constructor(private readonly prisma: PrismaClient, private readonly onError?: (e: unknown) => void) {}

  /** The snapshot to read one whole score call from. Never null: version 0 before any publication. */
  current(): Snapshot {
    return this.snapshot;
  }

  /** Loads the latest complete publication (or the empty snapshot when there is none). */
  async load(): Promise<Snapshot> {
    await this.refresh();
    return this.snapshot;
  }

  /**
   * One tiny query; loads and swaps only when the latest complete version changed. Concurrent
   * calls share one run. Resolves true when a new snapshot was swapped in.
   */
  refresh(): Promise<boolean> {
    if (!this.inFlight) this.inFlight = this.refreshOnce().finally(() => { this.inFlight = null; });
    return this.inFlight;
  }

  private async refreshOnce(): Promise<boolean> {
    for (let attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt++) {
      const latest: LatestPublication | null = await latestComplete(this.prisma);
      if (latest === null) {
        const changed = this.snapshot.version !== 0;
        this.snapshot = EMPTY_SNAPSHOT;
        return changed;
      }
      if (latest.version === this.snapshot.version) return false;
      const rows = await readRows(this.prisma, latest.id);
      if (rows.length !== latest.entityCount) continue; // pruned under us: ask again which is latest
      this.snapshot = buildSnapshot(latest.version, latest.publishedAt, rows);
      return true;
    }
    throw new Error('the latest publication kept disappearing while it was being loaded');
  }

  /** Polls every intervalMs in the background; errors go to onError and the old snapshot stays. */
  start(intervalMs: number): void {
    this.stop();
    this.timer = setInterval(() => {
      this.refresh().catch((e) => this.onError?.(e));
    }, Math.max(50, intervalMs));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
