/**
 * One publication held in memory for scoring: an immutable Snapshot.
 *
 * Everything a score call reads lives in ONE snapshot object: the global layer and the
 * contextual layers (one per workspace). A caller takes it once and reads only from it, so a
 * refresh swapping in a newer publication mid-call cannot mix two publications in one answer.
 *
 * Layout: hundreds of thousands of rows are held as columns (typed arrays) with one
 * key → row Map per layer and dimension code. An object per row cost four times the heap and made
 * every major GC walk those objects (docs/decisions/0005-publication-snapshot-in-columns.md); a lookup builds the small frozen entity it returns.
 */
import type { DimensionCode } from '../network/types.ts';
import type { EntitySummary, EvidenceCounts } from '../scoring/evidence.ts';
import type { RiskLevel } from '../scoring/levels.ts';
import { GLOBAL_LAYER } from './gather.ts';

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
export type SummaryRowTuple = [number, string, string, string, number, string, number, number, number, number, number, number, number | null, number | null];

const nothing: Lookup = () => undefined;

/** key → row, one Map per dimension code. */
type Layer = Map<string, Map<string, number>>;

/** The columns every lookup reads from; row i of each array belongs to the same summary. */
type Columns = {
  score: Int16Array;
  level: Uint8Array;
  counts: Uint32Array;
  reporters: Int32Array;
  /** Epoch ms; NaN for "never". */
  first: Float64Array;
  last: Float64Array;
  levels: readonly RiskLevel[];
  countsTable: readonly EvidenceCounts[];
  /** Display names that differ from the key (most rows' name IS the key: ips, subnets, ASNs). */
  names: ReadonlyMap<number, string>;
};

function dateOf(ms: number): Date | null {
  return Number.isNaN(ms) ? null : new Date(ms);
}

function lookupOf(layer: Layer, c: Columns): Lookup {
  return (code, key) => {
    const row = layer.get(code)?.get(key);
    if (row === undefined) return undefined;
    return Object.freeze({
      name: c.names.get(row) ?? key, score: c.score[row]!, level: c.levels[c.level[row]!]!, counts: c.countsTable[c.counts[row]!]!,
      reporters: c.reporters[row]!, firstSeen: dateOf(c.first[row]!), lastSeen: dateOf(c.last[row]!),
    });
  };
}

/**
 * Collects rows, then builds the snapshot. Equal count tuples share one frozen object and
 * levels one string; the columns are filled as plain arrays and packed once in build().
 * Snapshots and everything they return must be treated as read-only.
 */
export class SnapshotBuilder {
  private readonly global: Layer = new Map();
  private readonly layers = new Map<number, Layer>();
  private readonly countsIds = new Map<string, number>();
  private readonly countsTable: EvidenceCounts[] = [];
  private readonly levelIds = new Map<string, number>();
  private readonly levels: RiskLevel[] = [];
  private readonly names = new Map<number, string>();
  private readonly cols = { score: [] as number[], level: [] as number[], counts: [] as number[], reporters: [] as number[], first: [] as number[], last: [] as number[] };

  add(r: SummaryRowTuple): void {
    const [workspaceId, code, key, name, score, level, reports, bad, neutral, good, feeds, reporters, firstMs, lastMs] = r;
    const row = this.cols.score.length;
    const countsKey = `${reports},${bad},${neutral},${good},${feeds}`;
    let countsId = this.countsIds.get(countsKey);
    if (countsId === undefined) {
      countsId = this.countsTable.push(Object.freeze({ reports, badRatings: bad, neutralRatings: neutral, goodRatings: good, feedListings: feeds })) - 1;
      this.countsIds.set(countsKey, countsId);
    }
    let levelId = this.levelIds.get(level);
    if (levelId === undefined) {
      levelId = this.levels.push(level as RiskLevel) - 1;
      this.levelIds.set(level, levelId);
    }
    this.cols.score.push(score);
    this.cols.level.push(levelId);
    this.cols.counts.push(countsId);
    this.cols.reporters.push(reporters);
    this.cols.first.push(firstMs ?? NaN);
    this.cols.last.push(lastMs ?? NaN);
    if (name !== key) this.names.set(row, name);
    let layer = workspaceId === GLOBAL_LAYER ? this.global : this.layers.get(workspaceId);
    if (!layer) this.layers.set(workspaceId, (layer = new Map()));
    let byCode = layer.get(code);
    if (!byCode) layer.set(code, (byCode = new Map()));
    byCode.set(key, row);
  }

  get size(): number {
    return this.cols.score.length;
  }

  build(version: number, publishedAt: Date | null): Snapshot {
    const c: Columns = {
      score: Int16Array.from(this.cols.score), level: Uint8Array.from(this.cols.level), counts: Uint32Array.from(this.cols.counts),
      reporters: Int32Array.from(this.cols.reporters), first: Float64Array.from(this.cols.first), last: Float64Array.from(this.cols.last),
      levels: this.levels, countsTable: this.countsTable, names: this.names,
    };
    const contextual = new Map<number, Lookup>([...this.layers].map(([id, layer]) => [id, lookupOf(layer, c)]));
    return Object.freeze({
      version, publishedAt, size: this.size,
      global: lookupOf(this.global, c),
      contextual: (workspaceId: number) => contextual.get(workspaceId) ?? nothing,
    });
  }
}

export const EMPTY_SNAPSHOT: Snapshot = new SnapshotBuilder().build(0, null);
