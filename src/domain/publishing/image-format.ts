/**
 * The publication image: one publication's summaries as ONE binary buffer. A process loads a
 * publication by copying its bytes and laying typed-array views over them: no row is parsed, and
 * there is no object, string or map entry per row for the garbage collector to walk
 * (docs/decisions/0025-publication-image.md).
 *
 * Layout (platform byte order, little-endian on every machine Node targets; each section starts on
 * an 8-byte boundary so its view needs no copy):
 *   "RPI1" | u32 header length | header JSON (see Header) | padding
 *   first     f64[rows]  epoch ms, NaN for "never"
 *   last      f64[rows]
 *   keyEnd    u32[rows]  where row i's key ends in `keys` (it starts where row i - 1's ends)
 *   slots     i32[…]     one open-addressing hash table per segment (layer × dimension code): a row, or -1
 *   countIds  uint[rows] index into header.counts
 *   reporters uint[rows]
 *   score     uint[rows]
 *   level     uint[rows] index into header.levels
 *   reportedIds uint[rows] index into header.reported (only when the header has `reported`: images written before
 *             what-was-reported was kept have neither, and read as rows without it)
 *   keys      u8[…] or u16[…]: every key's UTF-16 code units; u16 only when some key has one above 0xFF
 * Each "uint" column is as wide as its largest value needs (header.widths): 1, 2 or 4 bytes.
 */
import type { DimensionCode } from '../network/types.ts';
import type { RiskLevel } from '../scoring/levels.ts';
import { countsByOutcomeOf, type EvidenceCounts, type FeedListing, type ReportedSummary } from '../scoring/evidence.ts';

const MAGIC = 0x31495052; // "RPI1" read as a little-endian u32

/** [reports, badRatings, neutralRatings, goodRatings, feedListings] */
export type CountsTuple = [number, number, number, number, number];
/** One hash table: [workspaceId, code, first slot, slot count (a power of two)]. */
export type SegmentEntry = [number, DimensionCode, number, number];

/** [sources, outcomes, sharedOutcomes, listings as [feed, block]] (evidence.ts, ReportedSummary). */
export type ReportedTuple = [number, number[], number[], Array<[string, string]>];

/** A summary's `reported` as stored (publication-store.ts) and imaged; null when it has none. */
export function reportedTuple(r: ReportedSummary | null | undefined): ReportedTuple | null {
  if (!r) return null;
  return [
    r.sources,
    [...r.outcomes],
    [...r.sharedOutcomes],
    r.listings.map((l): [string, string] => [l.feed, l.block]),
  ];
}

/** The integer columns stored in the fewest bytes their values need; reportedIds only in images that keep `reported`. */
const NARROW = ['countIds', 'reporters', 'score', 'level', 'reportedIds'] as const;
type Narrow = (typeof NARROW)[number];
const narrowOf = (h: { reported?: unknown }): readonly Narrow[] =>
  h.reported === undefined ? NARROW.filter((n) => n !== 'reportedIds') : NARROW;
type Width = 1 | 2 | 4;
const UINT_ARRAYS = { 1: Uint8Array, 2: Uint16Array, 4: Uint32Array } as const;
type UintArray = Uint8Array | Uint16Array | Uint32Array;

function widthFor(values: Uint32Array): Width {
  let max = 0;
  for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!;
  return max <= 0xff ? 1 : max <= 0xffff ? 2 : 4;
}

type Header = {
  rows: number;
  keyUnits: number;
  wide: boolean;
  slots: number;
  widths: Partial<Record<Narrow, Width>>;
  levels: RiskLevel[];
  counts: CountsTuple[];
  /** What was reported, one tuple per distinct value; absent in images written before it was kept. */
  reported?: ReportedTuple[];
  /** [row, name] for the rows whose display name is not their key (most rows' name IS the key). */
  names: Array<[number, string]>;
  segments: SegmentEntry[];
};

export type Image = Omit<Header, 'names' | 'counts' | 'reported'> & {
  names: ReadonlyMap<number, string>;
  /** header.counts as the frozen objects lookups return, indexed by countIds. */
  counts: readonly EvidenceCounts[];
  /** header.reported as the frozen objects lookups return, indexed by reportedIds; null in an image without it. */
  reported: readonly ReportedSummary[] | null;
  reportedIds: UintArray | undefined;
  first: Float64Array;
  last: Float64Array;
  keyEnd: Uint32Array;
  slotTable: Int32Array;
  countIds: UintArray;
  reporters: UintArray;
  score: UintArray;
  level: UintArray;
  keys: Uint8Array | Uint16Array;
};

/** The columns a builder hands over, row i of each belonging to the same summary; keys as one arena of UTF-16 code units. */
export type ImageColumns = {
  first: Float64Array;
  last: Float64Array;
  countIds: Uint32Array;
  reporters: Uint32Array;
  score: Uint32Array;
  level: Uint32Array;
  reportedIds: Uint32Array;
  keyUnits: Uint8Array | Uint16Array;
  keyEnd: Uint32Array;
};

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** murmur3's finaliser, so that every low bit (the slot) depends on every unit. */
function finish(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** FNV-1a over the key's UTF-16 code units, finished. */
export function hashKey(key: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), FNV_PRIME);
  return finish(h);
}

/** hashKey of the key held in units[begin, end). */
function hashUnits(units: ArrayLike<number>, begin: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = begin; i < end; i++) h = Math.imul(h ^ units[i]!, FNV_PRIME);
  return finish(h);
}

/** Slots for n keys: a power of two with the table at most three-quarters full. */
export function slotCountFor(n: number): number {
  let size = 2;
  while (size * 3 < n * 4) size *= 2;
  return size;
}

const align8 = (n: number) => (n + 7) & ~7;

/** Where row's key starts in the arena: where the previous row's ends. */
const keyStart = (keyEnd: Uint32Array, row: number) => (row === 0 ? 0 : keyEnd[row - 1]!);

type Section = { name: keyof Image; bytes: number; make: (buf: ArrayBuffer, offset: number) => ArrayBufferView };

/** Section order and sizes, from the header alone: the writer and the reader walk the same list. */
function sections(h: Header): Section[] {
  const n = h.rows;
  return [
    { name: 'first', bytes: 8 * n, make: (b, o) => new Float64Array(b, o, n) },
    { name: 'last', bytes: 8 * n, make: (b, o) => new Float64Array(b, o, n) },
    { name: 'keyEnd', bytes: 4 * n, make: (b, o) => new Uint32Array(b, o, n) },
    { name: 'slotTable', bytes: 4 * h.slots, make: (b, o) => new Int32Array(b, o, h.slots) },
    ...narrowOf(h).map(
      (name): Section => ({
        name,
        bytes: h.widths[name]! * n,
        make: (b, o) => new UINT_ARRAYS[h.widths[name]!](b, o, n),
      }),
    ),
    {
      name: 'keys',
      bytes: (h.wide ? 2 : 1) * h.keyUnits,
      make: (b, o) => (h.wide ? new Uint16Array(b, o, h.keyUnits) : new Uint8Array(b, o, h.keyUnits)),
    },
  ];
}

/** Each section's view, laid out one after the other from bodyStart. */
function layout(buffer: ArrayBuffer, bodyStart: number, h: Header): Partial<Record<keyof Image, ArrayBufferView>> {
  const views: Partial<Record<keyof Image, ArrayBufferView>> = {};
  let offset = bodyStart;
  for (const s of sections(h)) {
    views[s.name] = s.make(buffer, offset);
    offset = align8(offset + s.bytes);
  }
  return views;
}

function bodySize(h: Header): number {
  return sections(h).reduce((sum, s) => sum + align8(s.bytes), 0);
}

/**
 * Writes an image. `segments` lists, per layer and code, the rows it holds; their keys must be
 * distinct within a segment (the summaries' primary key makes them so).
 */
export function encodeImage(
  cols: ImageColumns,
  levels: RiskLevel[],
  counts: CountsTuple[],
  names: Array<[number, string]>,
  segments: Array<{ workspaceId: number; code: DimensionCode; rows: Int32Array }>,
  reported: ReportedTuple[] | undefined,
): Uint8Array {
  const rows = cols.keyEnd.length;
  const keyUnits = cols.keyUnits.length;
  const wide = cols.keyUnits instanceof Uint16Array && cols.keyUnits.some((unit) => unit > 0xff);
  const entries: SegmentEntry[] = [];
  let slots = 0;
  for (const s of segments) {
    const count = slotCountFor(s.rows.length);
    entries.push([s.workspaceId, s.code, slots, count]);
    slots += count;
  }
  const narrow = narrowOf({ reported });
  const widths = Object.fromEntries(narrow.map((name) => [name, widthFor(cols[name])])) as Record<Narrow, Width>;
  const header: Header = { rows, keyUnits, wide, slots, widths, levels, counts, reported, names, segments: entries };
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const bodyStart = align8(8 + headerBytes.length);
  const out = new Uint8Array(bodyStart + bodySize(header));
  const prefix = new DataView(out.buffer);
  prefix.setUint32(0, MAGIC, true);
  prefix.setUint32(4, headerBytes.length, true);
  out.set(headerBytes, 8);
  const v = layout(out.buffer, bodyStart, header) as unknown as Image;
  v.first.set(cols.first);
  v.last.set(cols.last);
  v.keyEnd.set(cols.keyEnd);
  v.keys.set(cols.keyUnits);
  for (const name of narrow) v[name]!.set(cols[name]);
  v.slotTable.fill(-1);
  segments.forEach((s, i) => {
    const [, , start, count] = entries[i]!;
    const mask = count - 1;
    for (const row of s.rows) {
      let slot = hashUnits(cols.keyUnits, keyStart(cols.keyEnd, row), cols.keyEnd[row]!) & mask;
      while (v.slotTable[start + slot]! >= 0) slot = (slot + 1) & mask;
      v.slotTable[start + slot] = row;
    }
  });
  return out;
}

export function reportedSummaryOf([sources, outcomes, sharedOutcomes, listings]: ReportedTuple): ReportedSummary {
  return Object.freeze({
    sources,
    byOutcome: Object.freeze(countsByOutcomeOf(outcomes)),
    outcomes: Object.freeze(outcomes),
    sharedOutcomes: Object.freeze(sharedOutcomes),
    listings: Object.freeze(listings.map(([feed, block]): FeedListing => Object.freeze({ feed, block }))),
  });
}

/** Reads an image written by encodeImage: views over `bytes` (copied once if not 8-byte aligned). */
export function decodeImage(bytes: Uint8Array): Image {
  if (bytes.byteOffset % 8 !== 0) bytes = bytes.slice();
  const prefix = new DataView(bytes.buffer, bytes.byteOffset, Math.min(8, bytes.byteLength));
  if (bytes.byteLength < 8 || prefix.getUint32(0, true) !== MAGIC)
    throw new Error('not a publication image (bad magic)');
  const headerLength = prefix.getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as Header;
  const bodyStart = bytes.byteOffset + align8(8 + headerLength);
  if (bodyStart - bytes.byteOffset + bodySize(header) !== bytes.byteLength)
    throw new Error('publication image: size does not match its header');
  const counts = header.counts.map(([reports, badRatings, neutralRatings, goodRatings, feedListings]) =>
    Object.freeze({ reports, badRatings, neutralRatings, goodRatings, feedListings }),
  );
  const img = {
    reportedIds: undefined,
    ...header,
    ...layout(bytes.buffer as ArrayBuffer, bodyStart, header),
    names: new Map(header.names),
    counts,
    reported: header.reported?.map(reportedSummaryOf) ?? null,
  } as unknown as Image;
  checkIndexes(img);
  return img;
}

/**
 * What a lookup relies on to end and stay in bounds: keys that end in order within the arena, slots that
 * hold -1 or a row, and an empty slot in every table (a probe stops there). A damaged image fails here,
 * at load, instead of sending a score call round a table forever.
 */
function checkIndexes(img: Image): void {
  let end = 0;
  for (let row = 0; row < img.rows; row++) {
    if (img.keyEnd[row]! < end) throw new Error('publication image: key offsets out of order');
    end = img.keyEnd[row]!;
  }
  if (end !== img.keyUnits) throw new Error('publication image: keys do not fill the arena');
  let slotsSeen = 0;
  for (const [, , start, count] of img.segments) {
    if (start !== slotsSeen || count < 2 || (count & (count - 1)) !== 0)
      throw new Error('publication image: a hash table is misplaced');
    let empty = 0;
    for (let slot = start; slot < start + count; slot++) {
      const row = img.slotTable[slot]!;
      if (row === -1) empty++;
      else if (row < 0 || row >= img.rows) throw new Error('publication image: a slot names no row');
    }
    if (empty === 0) throw new Error('publication image: a hash table has no empty slot');
    slotsSeen += count;
  }
  if (slotsSeen !== img.slots) throw new Error('publication image: hash tables do not fill their section');
  for (let row = 0; row < img.rows; row++) {
    if (img.level[row]! >= img.levels.length || img.countIds[row]! >= img.counts.length)
      throw new Error('publication image: a row names no level or counts');
    if (img.reported !== null && img.reportedIds![row]! >= img.reported.length)
      throw new Error('publication image: a row names no reported tuple');
  }
}

/** The row holding `key` in the segment [start, start + count), or -1. */
export function findRow(img: Image, start: number, count: number, key: string): number {
  const mask = count - 1;
  let slot = hashKey(key) & mask;
  for (;;) {
    const row = img.slotTable[start + slot]!;
    if (row < 0) return -1;
    if (keyIs(img, row, key)) return row;
    slot = (slot + 1) & mask;
  }
}

function keyIs(img: Image, row: number, key: string): boolean {
  const begin = keyStart(img.keyEnd, row);
  if (img.keyEnd[row]! - begin !== key.length) return false;
  for (let i = 0; i < key.length; i++) if (img.keys[begin + i] !== key.charCodeAt(i)) return false;
  return true;
}

/** Calls `visit` with each row of the segment [start, start + count) (in slot order, which is no order at all). */
export function forEachRow(img: Image, start: number, count: number, visit: (row: number) => void): void {
  for (let slot = start; slot < start + count; slot++) {
    const row = img.slotTable[slot]!;
    if (row >= 0) visit(row);
  }
}

/** The key of a row, as text. */
export function keyOf(img: Image, row: number): string {
  const begin = keyStart(img.keyEnd, row);
  return String.fromCharCode(...img.keys.subarray(begin, img.keyEnd[row]!));
}
