/**
 * The publisher: evidence in the database → one immutable publication of entity summaries.
 *
 *   claim version → gather evidence (gather.ts) → summarise each layer dimension by dimension
 *   (summarize.ts), streaming rows into the database in batches and into the publication's image
 *   (snapshot-builder.ts) → store the image and flip to 'complete' → prune.
 *
 * The version is claimed FIRST so a publisher racing another one fails in milliseconds (the
 * unique version; reported as "another publication is in progress") instead of after the work.
 * `now` is the instant evidence is evaluated at (decay); the publication's own timestamps are
 * wall-clock times, since pruning of stale builds compares them across processes.
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { NetworkIndex } from '../network/types.ts';
import { GLOBAL_LAYER, gatherEvidence } from './gather.ts';
import {
  claimVersion,
  completePublication,
  discardPublication,
  insertSummaries,
  prunePublications,
  type StoredRow,
} from './publication-store.ts';
import { placementOf, summarizeLayer, type Placement } from './summarize.ts';
import { SnapshotBuilder } from './snapshot-builder.ts';

export type PublishOptions = { now?: Date; keep?: number; batchSize?: number };
export type PublishResult = {
  version: number;
  publishedAt: Date;
  entities: { global: number; contextual: number };
  ms: number;
  stats: PublishStats;
};
export type PublishStats = {
  asOf: string;
  workspaces: number;
  reports: number;
  ratings: number;
  feeds: number;
  feedEntries: number;
  skippedSubjects: number;
  truncatedCidrs: number;
  gatherMs: number;
  writeMs: number;
  pruned: number;
};

export const DEFAULT_KEEP = 3;
const DEFAULT_BATCH = 5000;

export async function publish(
  prisma: PrismaClient,
  network: NetworkIndex,
  opts: PublishOptions = {},
): Promise<PublishResult> {
  const started = performance.now();
  const now = opts.now ?? new Date();
  const batchSize = Math.max(1, opts.batchSize ?? DEFAULT_BATCH);
  const claimed = await claimVersion(prisma, new Date());
  try {
    const gathered = await gatherEvidence(prisma, network);
    const gatherMs = performance.now() - started;

    // One resolution per IP per run, shared by the global and every contextual layer.
    const placements = new Map<string, Placement>();
    const placementFor = (ip: string): Placement => {
      let p = placements.get(ip);
      if (!p) placements.set(ip, (p = placementOf(network.resolve(ip))));
      return p;
    };

    const entities = { global: 0, contextual: 0 };
    const image = new SnapshotBuilder();
    let batch: StoredRow[] = [];
    // One insert in flight while the next batch is summarised: on PostgreSQL the database works
    // while this process computes (PGlite runs in this thread, so there it changes nothing).
    let inFlight: Promise<void> = Promise.resolve();
    const flush = async () => {
      const rows = batch;
      batch = [];
      await inFlight;
      inFlight = insertSummaries(prisma, claimed.id, rows);
      inFlight.catch(() => {}); // observed by the next flush; never an unhandled rejection meanwhile
    };
    const layerIds = [...gathered.layers.keys()].sort((a, b) => a - b); // 0 (global) first
    for (const workspaceId of layerIds) {
      const layer = gathered.layers.get(workspaceId)!;
      for (const row of summarizeLayer(layer, placementFor, now)) {
        const stored = { ...row, workspaceId };
        batch.push(stored);
        image.addStored(stored);
        if (workspaceId === GLOBAL_LAYER) entities.global++;
        else entities.contextual++;
        if (batch.length >= batchSize) await flush();
      }
      gathered.layers.delete(workspaceId); // its evidence is no longer needed
    }
    await flush();
    await inFlight;
    const writeMs = performance.now() - started - gatherMs;

    const publishedAt = new Date();
    const stats: PublishStats = {
      asOf: now.toISOString(),
      workspaces: layerIds.filter((id) => id !== GLOBAL_LAYER).length,
      ...gathered.stats,
      gatherMs: Math.round(gatherMs),
      writeMs: Math.round(writeMs),
      pruned: 0,
    };
    await completePublication(
      prisma,
      claimed.id,
      entities.global + entities.contextual,
      stats,
      publishedAt,
      image.encode(),
    );
    stats.pruned = await prunePublications(prisma, opts.keep ?? DEFAULT_KEEP);
    return { version: claimed.version, publishedAt, entities, ms: Math.round(performance.now() - started), stats };
  } catch (e) {
    await discardPublication(prisma, claimed.id).catch(() => {});
    throw e;
  }
}
