/**
 * The latest complete publication, held in memory for scoring (see snapshot.ts).
 *
 * Loading reads the publication's image (image-format.ts) part by part. A publication written
 * before images existed has none: its summary rows are read in chunks and the image is built
 * here. Pruning by a newer publisher can delete the publication between "which is latest?" and
 * the last part or chunk, which then comes back missing or short; the load is then retried
 * against the new latest. A complete publication never changes, so parts and chunks read by
 * separate statements add up to what one statement would read.
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { latestComplete, readImage, type LatestPublication } from './publication-store.ts';
import { snapshotOf, type Snapshot } from './snapshot.ts';
import { EMPTY_SNAPSHOT, SnapshotBuilder, type SummaryRowTuple } from './snapshot-builder.ts';

export type { Lookup, PublishedEntity, Snapshot } from './snapshot.ts';
export { EMPTY_SNAPSHOT } from './snapshot-builder.ts';

const MAX_LOAD_ATTEMPTS = 5;
/** Rows per statement when a publication has no image: bounds the JSON text and the memory the database and
 *  the driver hold for one reply (one reply for a whole publication grew PGlite's WebAssembly memory, which never shrinks). */
export const LOAD_CHUNK_ROWS = 20_000;

type Cursor = [workspaceId: number, code: string, key: string];

/**
 * Reads one chunk of a publication's rows, in primary-key order after `after`, as ONE json_agg
 * text parsed with one JSON.parse, much faster than letting the driver build an object per row
 * (docs/decisions/0005-publication-snapshot-in-columns.md). The ordered walk is the primary key's index.
 */
async function readChunk(
  prisma: PrismaClient,
  publicationId: number,
  after: Cursor | null,
  limit: number,
): Promise<SummaryRowTuple[]> {
  const [w, c, k] = after ?? [-1, '', ''];
  const result: Array<{ rows: string | null }> = await prisma.$queryRaw`
    SELECT json_agg(json_build_array("workspaceId", "code", "key", "name", "score", "level",
             COALESCE(("counts"->>'reports')::int, 0), COALESCE(("counts"->>'bad_ratings')::int, 0),
             COALESCE(("counts"->>'neutral_ratings')::int, 0), COALESCE(("counts"->>'good_ratings')::int, 0),
             COALESCE(("counts"->>'feed_listings')::int, 0), "reporters",
             (extract(epoch FROM "firstSeen") * 1000)::bigint, (extract(epoch FROM "lastSeen") * 1000)::bigint, "reported")
             ORDER BY "workspaceId", "code", "key")::text AS "rows"
      FROM (SELECT * FROM "PublishedSummary"
             WHERE "publicationId" = ${publicationId} AND ("workspaceId", "code", "key") > (${w}::int, ${c}::text, ${k}::text)
             ORDER BY "workspaceId", "code", "key" LIMIT ${limit}) AS chunk`;
  const text = result[0]?.rows;
  return text ? (JSON.parse(text) as SummaryRowTuple[]) : [];
}

async function readRows(
  prisma: PrismaClient,
  publicationId: number,
  into: SnapshotBuilder,
  chunkRows: number,
): Promise<void> {
  let after: Cursor | null = null;
  for (;;) {
    const rows = await readChunk(prisma, publicationId, after, chunkRows);
    for (const row of rows) into.add(row);
    if (rows.length < chunkRows) return;
    const last = rows[rows.length - 1]!;
    after = [last[0], last[1], last[2]];
  }
}

export class PublicationCache {
  private snapshot: Snapshot = EMPTY_SNAPSHOT;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<boolean> | null = null;

  private readonly onError: ((e: unknown) => void) | undefined;
  private readonly chunkRows: number;

  /** `onError` receives background refresh failures (the previous snapshot stays in use). */
  constructor(
    private readonly prisma: PrismaClient,
    opts: { onError?: (e: unknown) => void; chunkRows?: number } = {},
  ) {
    this.onError = opts.onError;
    this.chunkRows = opts.chunkRows ?? LOAD_CHUNK_ROWS;
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
    if (!this.inFlight)
      this.inFlight = this.refreshOnce().finally(() => {
        this.inFlight = null;
      });
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
      const loaded = await this.read(latest);
      if (!loaded) continue; // pruned under us: ask again which is latest
      this.snapshot = loaded;
      return true;
    }
    throw new Error('the latest publication kept disappearing while it was being loaded');
  }

  private async read(latest: LatestPublication): Promise<Snapshot | null> {
    if (latest.imageBytes !== null) {
      const image = await readImage(this.prisma, latest.id, latest.imageBytes);
      if (image === null) return null;
      try {
        return snapshotOf(image, latest.version, latest.publishedAt);
      } catch (e) {
        // An image this build cannot read (damaged, or a layout from another version during an upgrade):
        // the rows say the same, only slower to load.
        this.onError?.(
          new Error(`publication ${latest.version}: its image is unreadable (${String(e)}); loading its rows instead`),
        );
      }
    }
    const builder = new SnapshotBuilder();
    await readRows(this.prisma, latest.id, builder, this.chunkRows);
    return builder.size === latest.entityCount ? builder.build(latest.version, latest.publishedAt) : null;
  }

  /** Polls every intervalMs in the background; errors go to onError and the old snapshot stays. */
  start(intervalMs: number): void {
    this.stop();
    this.timer = setInterval(
      () => {
        this.refresh().catch((e) => this.onError?.(e));
      },
      Math.max(50, intervalMs),
    );
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
