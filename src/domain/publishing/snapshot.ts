/**
 * One publication held in memory for scoring: an immutable Snapshot.
 *
 * Everything a score call reads lives in ONE snapshot object: the global layer and the
 * contextual layers (one per workspace). A caller takes it once and reads only from it, so a
 * refresh swapping in a newer publication mid-call cannot mix two publications in one answer.
 *
 * A snapshot reads a publication image (image-format.ts): typed arrays and one hash table per
 * layer and dimension code, without an object, string or map entry per row
 * (docs/decisions/0025-publication-image.md); a lookup builds the small frozen entity it returns.
 */
import type { DimensionCode } from '../network/types.ts';
import type { EntitySummary } from '../scoring/evidence.ts';
import { decodeImage, findRow, forEachRow, keyOf, type Image } from './image-format.ts';
import { GLOBAL_LAYER } from './gather.ts';

export type PublishedEntity = EntitySummary & { name: string };
export type Lookup = (code: DimensionCode, key: string) => PublishedEntity | undefined;

export type Snapshot = {
  readonly version: number;
  readonly publishedAt: Date | null;
  /** Rows held (global + every contextual layer). */
  readonly size: number;
  /** Bytes of the image the snapshot reads. */
  readonly imageBytes: number;
  global: Lookup;
  /** That workspace's private layer; a lookup that finds nothing when it has none. */
  contextual(workspaceId: number): Lookup;
  /**
   * Every entity of one layer (GLOBAL_LAYER or a workspace's) and dimension code whose score is at least
   * `minScore`, with that score: a walk of the layer's hash table with no lookup and no object per row passed over.
   */
  scan(workspaceId: number, code: DimensionCode, minScore: number, visit: (key: string, score: number) => void): void;
};

const nothing: Lookup = () => undefined;

function dateOf(ms: number): Date | null {
  return Number.isNaN(ms) ? null : new Date(ms);
}

/** A layer's lookup: its hash table per dimension code, [first slot, slot count]. */
function lookupOf(img: Image, tables: ReadonlyMap<DimensionCode, [number, number]>): Lookup {
  return (code, key) => {
    const table = tables.get(code);
    if (table === undefined) return undefined;
    const row = findRow(img, table[0], table[1], key);
    if (row < 0) return undefined;
    return Object.freeze({
      name: img.names.get(row) ?? key,
      score: img.score[row]!,
      level: img.levels[img.level[row]!]!,
      counts: img.counts[img.countIds[row]!]!,
      reporters: img.reporters[row]!,
      firstSeen: dateOf(img.first[row]!),
      lastSeen: dateOf(img.last[row]!),
      reported: img.reported === null ? null : img.reported[img.reportedIds![row]!]!,
    });
  };
}

/** The snapshot of one publication's image. Snapshots and everything they return must be treated as read-only. */
export function snapshotOf(image: Uint8Array, version: number, publishedAt: Date | null): Snapshot {
  const img = decodeImage(image);
  const layers = new Map<number, Map<DimensionCode, [number, number]>>();
  for (const [workspaceId, code, start, count] of img.segments) {
    let layer = layers.get(workspaceId);
    if (!layer) layers.set(workspaceId, (layer = new Map()));
    layer.set(code, [start, count]);
  }
  const lookups = new Map([...layers].map(([id, tables]) => [id, lookupOf(img, tables)]));
  const scan: Snapshot['scan'] = (workspaceId, code, minScore, visit) => {
    const table = layers.get(workspaceId)?.get(code);
    if (table === undefined) return;
    forEachRow(img, table[0], table[1], (row) => {
      const score = img.score[row]!;
      if (score >= minScore) visit(keyOf(img, row), score);
    });
  };
  return Object.freeze({
    version,
    publishedAt,
    size: img.rows,
    imageBytes: image.byteLength,
    global: lookups.get(GLOBAL_LAYER) ?? nothing,
    contextual: (workspaceId: number) =>
      workspaceId === GLOBAL_LAYER ? nothing : (lookups.get(workspaceId) ?? nothing),
    scan,
  });
}
