/**
 * The publication image: every row added reads back exactly, in its own layer and code only;
 * absent keys, prefixes and longer keys are not found; keys beyond Latin-1 switch the key arena
 * to 16-bit units; crowded hash tables (many colliding slots) still find every row; a damaged
 * image is refused.
 */
import { describe, expect, it } from 'vitest';
import { decodeImage, hashKey, slotCountFor } from '../../src/domain/publishing/image-format.ts';
import { SnapshotBuilder, type SummaryRowTuple } from '../../src/domain/publishing/snapshot-builder.ts';
import { snapshotOf } from '../../src/domain/publishing/snapshot.ts';
import { countsByOutcomeOf } from '../../src/domain/scoring/evidence.ts';

const row = (workspaceId: number, code: string, key: string, i: number, name = key): SummaryRowTuple => [
  workspaceId,
  code,
  key,
  name,
  i % 101,
  ['none', 'low', 'medium', 'high', 'critical'][i % 5]!,
  i % 7,
  i % 3,
  0,
  i % 2,
  i % 4,
  i % 9,
  i % 11 === 0 ? null : 1_700_000_000_000 + i,
  i % 13 === 0 ? null : 1_700_000_500_123 + i,
  [i % 5, [i % 3, 0, 1], [i % 2, 0, 0], i % 4 === 0 ? [['drop', `10.${i % 250}.0.0/16`]] : []],
];

/** A row as a publication stored it before `reported` was kept. */
const oldRow = (workspaceId: number, code: string, key: string, i: number): SummaryRowTuple =>
  row(workspaceId, code, key, i).slice(0, 14) as SummaryRowTuple;

function expectHeld(snapshotRow: unknown, r: SummaryRowTuple): void {
  const [, , , name, score, level, reports, bad, neutral, good, feeds, reporters, first, last, kept] = r;
  const reported = kept
    ? {
        sources: kept[0],
        byOutcome: countsByOutcomeOf(kept[1]),
        outcomes: kept[1],
        sharedOutcomes: kept[2],
        listings: kept[3].map(([feed, block]) => ({ feed, block })),
      }
    : null;
  expect(snapshotRow).toEqual({
    reported,
    name,
    score,
    level,
    counts: { reports, badRatings: bad, neutralRatings: neutral, goodRatings: good, feedListings: feeds },
    reporters,
    firstSeen: first === null ? null : new Date(first),
    lastSeen: last === null ? null : new Date(last),
  });
}

describe('publication image', () => {
  it('reads back every row in its own layer and code, and finds nothing else', () => {
    const rows: SummaryRowTuple[] = [];
    for (let i = 0; i < 5000; i++) rows.push(row(0, 'ip', `10.${(i >> 8) & 255}.${i & 255}.${i % 7}`, i));
    for (let i = 0; i < 300; i++) rows.push(row(0, 'org', `org-${i}`, i, `Org Number ${i}`));
    for (let i = 0; i < 200; i++) rows.push(row(7, 'ip', `10.0.${i}.0`, i + 1));
    const b = new SnapshotBuilder();
    for (const r of rows) b.add(r);
    const snap = b.build(3, new Date(5));
    expect({ size: snap.size, version: snap.version }).toEqual({ size: rows.length, version: 3 });
    for (const r of rows) {
      const lookup = r[0] === 0 ? snap.global : snap.contextual(r[0]);
      expectHeld(lookup(r[1] as never, r[2]), r);
      expect(Object.isFrozen(lookup(r[1] as never, r[2]))).toBe(true);
    }
    expect(snap.global('ip', '10.0.0.')).toBeUndefined(); // a prefix of a held key
    expect(snap.global('ip', '10.0.0.00')).toBeUndefined(); // a held key plus one character
    expect(snap.global('subnet', '10.0.0.0')).toBeUndefined(); // held as an ip, not a subnet
    expect(snap.global('org', 'Org Number 1')).toBeUndefined(); // names are not keys
    expect(snap.contextual(7)('ip', '10.0.1.1'), 'the global layer is not the workspace layer').toBeUndefined();
    expect(snap.contextual(8)('ip', '10.0.1.0')).toBeUndefined();
    expect(
      snap.contextual(0)('ip', '10.0.1.0'),
      'workspace 0 is the global layer, never a contextual one',
    ).toBeUndefined();
  });

  it('holds keys beyond Latin-1 in 16-bit units, and Latin-1 keys in bytes', () => {
    const latin = new SnapshotBuilder();
    latin.add(row(0, 'city', 'são paulo', 1));
    expect(decodeImage(latin.encode()).wide).toBe(false);
    expectHeld(latin.build(1, null).global('city', 'são paulo'), row(0, 'city', 'são paulo', 1));

    const wide = new SnapshotBuilder();
    const rows = [
      row(0, 'city', 'são paulo', 1),
      row(0, 'city', '東京', 2),
      row(0, 'org', 'Ωmega 🚀', 3),
      row(0, 'city', 'tokyo', 4),
    ];
    for (const r of rows) wide.add(r);
    expect(decodeImage(wide.encode()).wide).toBe(true);
    const snap = wide.build(1, null);
    for (const r of rows) expectHeld(snap.global(r[1] as never, r[2]), r);
    expect(snap.global('city', '東')).toBeUndefined();
  });

  it('stores each integer column as wide as its largest value needs', () => {
    const small = new SnapshotBuilder();
    small.add(row(0, 'ip', '1.1.1.1', 1));
    expect(decodeImage(small.encode()).widths).toEqual({
      countIds: 1,
      reporters: 1,
      score: 1,
      level: 1,
      reportedIds: 1,
    });
    const wide = new SnapshotBuilder();
    const rows = [row(0, 'ip', '1.1.1.1', 1), row(0, 'ip', '2.2.2.2', 2), row(0, 'ip', '3.3.3.3', 3)];
    rows[1]![11] = 70_000; // reporters beyond 16 bits
    rows[2]![11] = 300; // beyond 8 bits
    for (const r of rows) wide.add(r);
    expect(decodeImage(wide.encode()).widths.reporters).toBe(4);
    for (const r of rows) expectHeld(wide.build(1, null).global('ip', r[2]), r);
    const negative = new SnapshotBuilder();
    const bad = row(0, 'ip', '1.1.1.1', 1);
    bad[11] = -1;
    expect(() => negative.add(bad)).toThrow(/reporters -1 is not an unsigned 32-bit integer/);
  });

  it('finds every row of a table where many keys share the same first slot', () => {
    const size = slotCountFor(600);
    const mask = size - 1;
    const crowded: string[] = [];
    for (let i = 0; crowded.length < 450; i++) if ((hashKey(`k${i}`) & mask) < 4) crowded.push(`k${i}`); // 450 keys hashed into 4 slots
    const b = new SnapshotBuilder();
    for (const [i, k] of crowded.entries()) b.add(row(0, 'asn', k, i));
    for (let i = 0; i < 150; i++) b.add(row(0, 'asn', `other-${i}`, i));
    const snap = b.build(1, null);
    for (const [i, k] of crowded.entries()) expectHeld(snap.global('asn', k), row(0, 'asn', k, i));
    expect(snap.global('asn', 'k-missing')).toBeUndefined();
  });

  it('an empty image answers nothing; a damaged one is refused at load', () => {
    const empty = new SnapshotBuilder().build(0, null);
    expect({ size: empty.size, hit: empty.global('ip', '1.1.1.1') }).toEqual({ size: 0, hit: undefined });
    const b = new SnapshotBuilder();
    b.add(row(0, 'ip', '1.1.1.1', 1));
    const image = b.encode();
    expect(() => snapshotOf(image.subarray(0, image.length - 8), 1, null)).toThrow(/size does not match/);
    const bad = image.slice();
    bad[0] = 0;
    expect(() => snapshotOf(bad, 1, null)).toThrow(/bad magic/);
    // Every slot of its one table filled: a probe for a missing key would never end.
    const full = image.slice();
    const img = decodeImage(full);
    img.slotTable.fill(0);
    expect(() => decodeImage(full)).toThrow(/has no empty slot/);
    img.slotTable.fill(-1);
    img.slotTable[0] = 7;
    expect(() => decodeImage(full)).toThrow(/names no row/);
  });

  it('reads a publication stored before `reported` was kept: its rows say reported null, and an image of them has no such column', () => {
    const b = new SnapshotBuilder();
    const rows = [oldRow(0, 'ip', '1.1.1.1', 1), oldRow(0, 'subnet', '1.1.1.0/24', 2), oldRow(4, 'ip', '1.1.1.1', 3)];
    for (const r of rows) b.add(r);
    const image = b.encode();
    expect(decodeImage(image).reported).toBeNull();
    expect(decodeImage(image).widths).not.toHaveProperty('reportedIds');
    const snap = snapshotOf(image, 1, null);
    for (const r of rows) expectHeld((r[0] === 0 ? snap.global : snap.contextual(r[0]))(r[1] as never, r[2]), r);
    expect(snap.global('ip', '1.1.1.1')?.reported).toBeNull();
  });

  it('keeps equal reported tuples once', () => {
    const b = new SnapshotBuilder();
    for (let i = 0; i < 40; i++) b.add(row(0, 'ip', `1.1.1.${i}`, 0));
    expect(decodeImage(b.encode()).reported).toHaveLength(2); // "nothing" and the one tuple all rows share
  });

  it('reads an image that starts at an unaligned offset (a copy is made)', () => {
    const b = new SnapshotBuilder();
    b.add(row(0, 'ip', '1.1.1.1', 1));
    const image = b.encode();
    const shifted = new Uint8Array(image.length + 3);
    shifted.set(image, 3);
    expectHeld(snapshotOf(shifted.subarray(3), 1, null).global('ip', '1.1.1.1'), row(0, 'ip', '1.1.1.1', 1));
  });
});
