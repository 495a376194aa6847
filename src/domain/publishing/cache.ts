/**
 * The latest complete publication, held in memory for scoring.
 *
 * Everything a score call reads lives in ONE immutable snapshot object: the global layer (one
 * Map keyed `code \0 key`) and the contextual layers (a Map per workspace). A caller takes
 * `current()` once and reads only from it, so a refresh swapping in a newer publication
 * mid-call cannot mix two publications in one answer.
 *
 * Loading reads the summaries in a few large chunks and checks the row count against the
 * publication's entityCount: pruning by a newer publisher can delete the publication between
 * "which is latest?" and the last chunk, which then comes back short; the load is then retried
 * against the new latest. Rows of a complete publication never change, so chunks cannot mix.
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { DimensionCode } from '../network/types.ts';
import type { EntitySummary, EvidenceCounts } from '../scoring/evidence.ts';
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

/** One summary row as read: [workspaceId, code, key, name, score, level, reports, bad, neutral, good, feeds, reporters, firstMs, lastMs]. */
type Row = [number, string, string, string, number, string, number, number, number, number, number, number, number | null, number | null];

const MAX_LOAD_ATTEMPTS = 5;
/** Rows per read: each chunk is one JSON text (≈ 95 bytes a row), so memory stays bounded whatever the total. */
const READ_CHUNK = 100_000;
const nothing: Lookup = () => undefined;

function lookupOf(map: Map<string, PublishedEntity>): Lookup {
  return (code, key) => map.get(`${code}\u0000${key}`);
}

/**
 * Builds the snapshot. Memory matters at hundreds of thousands of rows, so equal values are
 * shared: one frozen counts object per distinct count tuple, one Date per distinct instant, one
 * string per level. Snapshots and everything in them must be treated as read-only.
 */
export class SnapshotBuilder {
  private readonly global = new Map<string, PublishedEntity>();
  private readonly layers = new Map<number, Map<string, PublishedEntity>>();
  private readonly counts = new Map<string, EvidenceCounts>();
  private readonly dates = new Map<number, Date>();
  private readonly levels = new Map<string, RiskLevel>();
  private rows = 0;

  add(r: Row): void {
    const [workspaceId, code, key, name, score, level, reports, bad, neutral, good, feeds, reporters, firstMs, lastMs] = r;
    const countsKey = `${reports},${bad},${neutral},${good},${feeds}`;
    let counts = this.counts.get(countsKey);
    if (!counts) {
      counts = Object.freeze({ reports, bad_ratings: bad, neutral_ratings: neutral, good_ratings: good, feed_listings: feeds });
      this.counts.set(countsKey, counts);
    }
    let lvl = this.levels.get(level);
    if (!lvl) this.levels.set(level, (lvl = level as RiskLevel));
    const entity: PublishedEntity = Object.freeze({
      name: name === key ? key : name, score, level: lvl, counts, reporters,
      firstSeen: this.date(firstMs), lastSeen: this.date(lastMs),
    });
    let target = this.global;
    if (workspaceId !== GLOBAL_LAYER) {
      let layer = this.layers.get(workspaceId);
      if (!layer) this.layers.set(workspaceId, (layer = new Map()));
      target = layer;
    }
    target.set(`${code}\u0000${key}`, entity);
    this.rows++;
  }

  get size(): number {
    return this.rows;
  }

  build(version: number, publishedAt: Date | null): Snapshot {
    const contextual = new Map<number, Lookup>([...this.layers].map(([id, map]) => [id, lookupOf(map)]));
    return Object.freeze({
      version, publishedAt, size: this.rows,
      global: lookupOf(this.global),
      contextual: (workspaceId: number) => contextual.get(workspaceId) ?? nothing,
    });
  }

  private date(ms: number | null): Date | null {
    if (ms === null) return null;
    let d = this.dates.get(ms);
    if (!d) this.dates.set(ms, (d = new Date(ms)));
    return d;
  }
}

export const EMPTY_SNAPSHOT: Snapshot = new SnapshotBuilder().build(0, null);

/**
 * Reads a publication's rows in keyset-ordered chunks. Each chunk comes back as ONE json_agg
 * text parsed with one JSON.parse: measured 4x faster than letting the driver build an object
 * per row (200k rows: 0.96 s vs 3.8 s on PGlite, 0.56 s vs 2.1 s on PostgreSQL).
 */
async function readRows(prisma: PrismaClient, publicationId: number, into: SnapshotBuilder, chunkSize: number): Promise<void> {
  let after: [number, string, string] | null = null;
  for (;;) {
    const [w, c, k]: [number, string, string] = after ?? [-1, '', ''];
    const chunk: Array<{ rows: string | null }> = await prisma.$queryRaw`
      SELECT json_agg(json_build_array("workspaceId", "code", "key", "name", "score", "level",
               COALESCE(("counts"->>'reports')::int, 0), COALESCE(("counts"->>'bad_ratings')::int, 0),
               COALESCE(("counts"->>'neutral_ratings')::int, 0), COALESCE(("counts"->>'good_ratings')::int, 0),
               COALESCE(("counts"->>'feed_listings')::int, 0), "reporters",
               (extract(epoch FROM "firstSeen") * 1000)::bigint, (extract(epoch FROM "lastSeen") * 1000)::bigint)
             ORDER BY "workspaceId", "code", "key")::text AS "rows"
        FROM (SELECT * FROM "PublishedSummary"
               WHERE "publicationId" = ${publicationId} AND ("workspaceId", "code", "key") > (${w}::int, ${c}::text, ${k}::text)
               ORDER BY "workspaceId", "code", "key" LIMIT ${chunkSize}) p`;
    const text = chunk[0]?.rows;
    if (!text) return;
    const rows = JSON.parse(text) as Row[];
    for (const row of rows) into.add(row);
    const last = rows[rows.length - 1]!;
    after = [last[0], last[1], last[2]];
    if (rows.length < chunkSize) return;
  }
}

export class PublicationCache {
  private snapshot: Snapshot = EMPTY_SNAPSHOT;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<boolean> | null = null;

  private readonly onError: ((e: unknown) => void) | undefined;
  private readonly readChunk: number;

  /** `onError` receives background refresh failures; `readChunk` is rows per read (tests use tiny ones). */
  constructor(private readonly prisma: PrismaClient, opts: { onError?: (e: unknown) => void; readChunk?: number } = {}) {
    this.onError = opts.onError;
    this.readChunk = Math.max(1, opts.readChunk ?? READ_CHUNK);
  }

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
      const builder = new SnapshotBuilder();
      await readRows(this.prisma, latest.id, builder, this.readChunk);
      if (builder.size !== latest.entityCount) continue; // pruned under us: ask again which is latest
      this.snapshot = builder.build(latest.version, latest.publishedAt);
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
