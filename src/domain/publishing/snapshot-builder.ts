/**
 * Collects a publication's summary rows and writes its image (image-format.ts). The publisher
 * feeds it the rows it stores, so the image is written with the publication; a reader finding a
 * publication without an image (written before images existed) feeds it the stored rows instead.
 * Equal count tuples and levels are stored once.
 */
import type { DimensionCode } from '../network/types.ts';
import type { RiskLevel } from '../scoring/levels.ts';
import { encodeImage, type CountsTuple } from './image-format.ts';
import { snapshotOf, type Snapshot } from './snapshot.ts';
import type { StoredRow } from './publication-store.ts';

/** One summary row: [workspaceId, code, key, name, score, level, reports, bad, neutral, good, feeds, reporters, firstMs, lastMs]. */
export type SummaryRowTuple = [number, string, string, string, number, string, number, number, number, number, number, number, number | null, number | null];

export class SnapshotBuilder {
  private readonly segments = new Map<string, { workspaceId: number; code: DimensionCode; rows: number[] }>();
  private readonly countsIds = new Map<string, number>();
  private readonly counts: CountsTuple[] = [];
  private readonly levelIds = new Map<string, number>();
  private readonly levels: RiskLevel[] = [];
  private readonly names: Array<[number, string]> = [];
  private readonly cols = {
    score: [] as number[], level: [] as number[], countIds: [] as number[], reporters: [] as number[],
    first: [] as number[], last: [] as number[], keys: [] as string[],
  };

  add(r: SummaryRowTuple): void {
    const [workspaceId, code, key, name, score, level, reports, bad, neutral, good, feeds, reporters, firstMs, lastMs] = r;
    const row = this.cols.keys.length;
    const countsKey = `${reports},${bad},${neutral},${good},${feeds}`;
    let countsId = this.countsIds.get(countsKey);
    if (countsId === undefined) {
      countsId = this.counts.push([reports, bad, neutral, good, feeds]) - 1;
      this.countsIds.set(countsKey, countsId);
    }
    let levelId = this.levelIds.get(level);
    if (levelId === undefined) {
      levelId = this.levels.push(level as RiskLevel) - 1;
      this.levelIds.set(level, levelId);
    }
    this.cols.score.push(score);
    this.cols.level.push(levelId);
    this.cols.countIds.push(countsId);
    this.cols.reporters.push(reporters);
    this.cols.first.push(firstMs ?? NaN);
    this.cols.last.push(lastMs ?? NaN);
    this.cols.keys.push(key);
    if (name !== key) this.names.push([row, name]);
    const segmentKey = `${workspaceId}/${code}`;
    let segment = this.segments.get(segmentKey);
    if (!segment) this.segments.set(segmentKey, (segment = { workspaceId, code: code as DimensionCode, rows: [] }));
    segment.rows.push(row);
  }

  /** A row as the publisher stores it. */
  addStored(r: StoredRow): void {
    const { score, level, counts: c, reporters, firstSeen, lastSeen } = r.summary;
    this.add([r.workspaceId, r.code, r.key, r.name, score, level, c.reports, c.badRatings, c.neutralRatings, c.goodRatings, c.feedListings,
      reporters, firstSeen?.getTime() ?? null, lastSeen?.getTime() ?? null]);
  }

  get size(): number {
    return this.cols.keys.length;
  }

  /** The publication image of every row added. */
  encode(): Uint8Array {
    return encodeImage(this.cols, this.levels, this.counts, this.names, [...this.segments.values()]);
  }

  build(version: number, publishedAt: Date | null): Snapshot {
    return snapshotOf(this.encode(), version, publishedAt);
  }
}

export const EMPTY_SNAPSHOT: Snapshot = new SnapshotBuilder().build(0, null);
