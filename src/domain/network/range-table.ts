/**
 * Announced address ranges in flat typed arrays: row i covers starts[i*w .. i*w+w) to
 * ends[i*w ..] inclusive (w = 1 word for IPv4, 4 for IPv6), announced by asns[i] whose
 * organisation is orgIds[i] (an index into the OrgTable string table). Rows are sorted by
 * start and never overlap, so one binary search answers a lookup.
 */
import { compareWords, type Words } from './address-words.ts';

export type RangeTable = {
  version: 4 | 6;
  width: 1 | 4;
  count: number;
  starts: Uint32Array;
  ends: Uint32Array;
  asns: Uint32Array;
  orgIds: Uint32Array;
};

/** Index of the row containing the address, or -1. */
export function findRow(table: RangeTable, words: Words): number {
  const { width, starts, ends } = table;
  if (width === 1) {
    const ip = words[0]!;
    let lo = 0;
    let hi = table.count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid]! <= ip) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found !== -1 && ip <= ends[found]! ? found : -1;
  }
  let lo = 0;
  let hi = table.count - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (compareWords(starts, mid * 4, words, 0, 4) <= 0) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found !== -1 && compareWords(words, 0, ends, found * 4, 4) <= 0 ? found : -1;
}

export function rowStart(table: RangeTable, row: number): Words {
  return Array.from(table.starts.subarray(row * table.width, row * table.width + table.width));
}

export function rowEnd(table: RangeTable, row: number): Words {
  return Array.from(table.ends.subarray(row * table.width, row * table.width + table.width));
}

/** Addresses in a row (a float for IPv6). */
export function rowSize(table: RangeTable, row: number): number {
  const w = table.width;
  let size = 0;
  let borrow = 1; // end - start + 1, computed word by word in floating point
  for (let k = w - 1; k >= 0; k--) {
    const diff = table.ends[row * w + k]! - table.starts[row * w + k]! + borrow;
    size += diff * 2 ** (32 * (w - 1 - k));
    borrow = 0;
  }
  return size;
}

/**
 * Make rows sorted and disjoint. The data is sorted already; the rare overlap (one in the
 * packaged IPv4 file, between two US DoD ranges) is resolved in favour of
 * the later-starting, more specific row by ending the earlier row just before it.
 */
export function normaliseRows(table: RangeTable): RangeTable {
  const w = table.width;
  let sorted = true;
  for (let i = 1; i < table.count && sorted; i++)
    sorted = compareWords(table.starts, (i - 1) * w, table.starts, i * w, w) <= 0;
  const t = sorted ? table : sortRows(table);
  for (let i = 1; i < t.count; i++) {
    if (compareWords(t.ends, (i - 1) * w, t.starts, i * w, w) < 0) continue;
    // previous end := this start - 1 (copy, then decrement with borrow)
    const prev = (i - 1) * w;
    for (let k = 0; k < w; k++) t.ends[prev + k] = t.starts[i * w + k]!;
    for (let k = w - 1; k >= 0; k--) {
      const v = t.ends[prev + k]!;
      t.ends[prev + k] = v === 0 ? 0xffffffff : v - 1;
      if (v !== 0) break;
    }
  }
  return t;
}

function sortRows(table: RangeTable): RangeTable {
  const w = table.width;
  const order = Array.from({ length: table.count }, (_, i) => i);
  order.sort((a, b) => compareWords(table.starts, a * w, table.starts, b * w, w));
  const pick = (src: Uint32Array, n: number): Uint32Array => {
    const out = new Uint32Array(table.count * n);
    order.forEach((from, to) => {
      out.set(src.subarray(from * n, from * n + n), to * n);
    });
    return out;
  };
  return {
    ...table,
    starts: pick(table.starts, w),
    ends: pick(table.ends, w),
    asns: pick(table.asns, 1),
    orgIds: pick(table.orgIds, 1),
  };
}
