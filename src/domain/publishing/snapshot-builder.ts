/**
 * Collects a publication's summary rows and writes its image (image-format.ts). The publisher
 * feeds it the rows it stores, so the image is written with the publication; a reader finding a
 * publication without a readable image feeds it the stored rows instead. Rows are held in typed
 * arrays that grow as they fill and keys in one arena of code units (bytes until a key needs
 * more), so holding a whole publication costs no object or string per row
 * (docs/decisions/0025-publication-image.md).
 * Equal count tuples and levels are stored once.
 */
import type { DimensionCode } from '../network/types.ts';
import type { RiskLevel } from '../scoring/levels.ts';
import { encodeImage, reportedTuple, type CountsTuple, type ImageColumns, type ReportedTuple } from './image-format.ts';
import { snapshotOf, type Snapshot } from './snapshot.ts';
import type { StoredRow } from './publication-store.ts';
import { withRoom, type GrowableArray } from '../../platform/typed-arrays.ts';

/**
 * One summary row: [workspaceId, code, key, name, score, level, reports, bad, neutral, good, feeds, reporters, firstMs,
 * lastMs, reported]; `reported` is null (or absent) in rows stored before it was kept.
 */
export type SummaryRowTuple = [
  number,
  string,
  string,
  string,
  number,
  string,
  number,
  number,
  number,
  number,
  number,
  number,
  number | null,
  number | null,
  (ReportedTuple | null)?,
];

function unsigned(v: number, what: string): number {
  if (!Number.isInteger(v) || v < 0 || v > 0xffffffff)
    throw new Error(`publication image: ${what} ${v} is not an unsigned 32-bit integer`);
  return v;
}

/** One segment's rows (a layer's rows of one dimension code). */
type Segment = { workspaceId: number; code: DimensionCode; rows: Int32Array; size: number };

export class SnapshotBuilder {
  private rows = 0;
  private units = 0;
  private cols: ImageColumns = {
    first: new Float64Array(1024),
    last: new Float64Array(1024),
    countIds: new Uint32Array(1024),
    reporters: new Uint32Array(1024),
    score: new Uint32Array(1024),
    level: new Uint32Array(1024),
    reportedIds: new Uint32Array(1024),
    keyEnd: new Uint32Array(1024),
    keyUnits: new Uint8Array(16 * 1024),
  };
  private readonly segments = new Map<string, Segment>();
  private readonly countsIds = new Map<string, number>();
  private readonly counts: CountsTuple[] = [];
  private readonly levelIds = new Map<string, number>();
  private readonly levels: RiskLevel[] = [];
  private readonly names: Array<[number, string]> = [];
  /** Tuple 0 is "nothing reported" (the value of a stored row without one); equal tuples are kept once. */
  private readonly reportedIds = new Map<string, number>();
  private readonly reported: ReportedTuple[] = [];
  private rowsWithReported = 0;

  add(r: SummaryRowTuple): void {
    const [workspaceId, code, key, name, score, level, reports, bad, neutral, good, feeds, reporters, firstMs, lastMs] =
      r;
    const reported = r[14] ?? null;
    const row = this.rows++;
    const c = this.cols;
    if (row === c.first.length) {
      for (const column of [
        'first',
        'last',
        'countIds',
        'reporters',
        'score',
        'level',
        'reportedIds',
        'keyEnd',
      ] as const) {
        (c[column] as GrowableArray) = withRoom(c[column], row + 1);
      }
    }
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
    c.reportedIds[row] = this.reportedId(reported);
    c.score[row] = unsigned(score, 'score');
    c.level[row] = levelId;
    c.countIds[row] = countsId;
    c.reporters[row] = unsigned(reporters, 'reporters');
    c.first[row] = firstMs ?? NaN;
    c.last[row] = lastMs ?? NaN;
    c.keyUnits = withRoom(c.keyUnits, this.units + key.length);
    for (let i = 0; i < key.length; i++) {
      const unit = key.charCodeAt(i);
      if (unit > 0xff && c.keyUnits instanceof Uint8Array) c.keyUnits = Uint16Array.from(c.keyUnits); // the first key beyond Latin-1
      c.keyUnits[this.units + i] = unit;
    }
    c.keyEnd[row] = this.units += key.length;
    if (name !== key) this.names.push([row, name]);
    const segmentKey = `${workspaceId}/${code}`;
    let segment = this.segments.get(segmentKey);
    if (!segment)
      this.segments.set(
        segmentKey,
        (segment = { workspaceId, code: code as DimensionCode, rows: new Int32Array(64), size: 0 }),
      );
    segment.rows = withRoom(segment.rows, segment.size + 1);
    segment.rows[segment.size++] = row;
  }

  private reportedId(t: ReportedTuple | null): number {
    if (this.reported.length === 0) this.reported.push([0, [], [], []]);
    if (t === null) return 0;
    this.rowsWithReported++;
    const key = JSON.stringify(t);
    let id = this.reportedIds.get(key);
    if (id === undefined) {
      id = this.reported.push(t) - 1;
      this.reportedIds.set(key, id);
    }
    return id;
  }

  /** A row as the publisher stores it. */
  addStored(r: StoredRow): void {
    const { score, level, counts: c, reporters, firstSeen, lastSeen } = r.summary;
    this.add([
      r.workspaceId,
      r.code,
      r.key,
      r.name,
      score,
      level,
      c.reports,
      c.badRatings,
      c.neutralRatings,
      c.goodRatings,
      c.feedListings,
      reporters,
      firstSeen?.getTime() ?? null,
      lastSeen?.getTime() ?? null,
      reportedTuple(r.summary.reported),
    ]);
  }

  get size(): number {
    return this.rows;
  }

  /** The publication image of every row added. */
  encode(): Uint8Array {
    const n = this.rows;
    const c = this.cols;
    const columns: ImageColumns = {
      first: c.first.subarray(0, n),
      last: c.last.subarray(0, n),
      countIds: c.countIds.subarray(0, n),
      reporters: c.reporters.subarray(0, n),
      score: c.score.subarray(0, n),
      level: c.level.subarray(0, n),
      reportedIds: c.reportedIds.subarray(0, n),
      keyEnd: c.keyEnd.subarray(0, n),
      keyUnits: c.keyUnits.subarray(0, this.units),
    };
    const segments = [...this.segments.values()].map((s) => ({
      workspaceId: s.workspaceId,
      code: s.code,
      rows: s.rows.subarray(0, s.size),
    }));
    // Rows stored before `reported` was kept (an old publication loaded from its rows) make an image without it,
    // so their lookups say "not kept" rather than "nothing reported".
    const reported = this.rows === 0 || this.rowsWithReported > 0 ? this.reported : undefined;
    if (reported && reported.length === 0) reported.push([0, [], [], []]);
    return encodeImage(columns, this.levels, this.counts, this.names, segments, reported);
  }

  build(version: number, publishedAt: Date | null): Snapshot {
    return snapshotOf(this.encode(), version, publishedAt);
  }
}

export const EMPTY_SNAPSHOT: Snapshot = new SnapshotBuilder().build(0, null);
