/**
 * The workspace memory's columns: what is kept reads back exactly as the stored fields say; an older
 * or equal revision never replaces a newer one; a subject without a rating has no last rating; the
 * table grows past its first capacity without losing a slot.
 */
import { describe, expect, it } from 'vitest';
import { IpMemoryTable, type MemoryFields } from '../../src/domain/memory/ip-memory-table.ts';

const fields = (revision: number, over: Partial<MemoryFields> = {}): MemoryFields => ({
  good: 1,
  neutral: 2,
  bad: 3,
  reports: 4,
  lastRatingId: 9,
  lastRating: -1,
  lastNote: 'card testing',
  lastRatedAt: new Date('2026-11-26T10:00:00.123Z'),
  revision,
  ownBad: 1.5,
  ownGood: 0,
  ownBadAt: new Date('2026-11-26T09:00:00.000Z'),
  ownGoodAt: null,
  ownFloorAt: new Date('2026-11-26T09:00:00.000Z'),
  ...over,
});

describe('IpMemoryTable', () => {
  it('reads back what it keeps, as frozen objects', () => {
    const t = new IpMemoryTable();
    t.keep('192.0.2.1', fields(1));
    const m = t.get('192.0.2.1');
    const at = Date.parse('2026-11-26T09:00:00.000Z');
    expect(t.own('192.0.2.1')).toEqual({ bad: 1.5, good: 0, badAt: at, goodAt: null, floorAt: at });
    expect(m).toEqual({
      goodRatings: 1,
      neutralRatings: 2,
      badRatings: 3,
      reports: 4,
      lastRating: { rating: -1, note: 'card testing', createdAt: '2026-11-26T10:00:00.123Z' },
    });
    expect(Object.isFrozen(m) && Object.isFrozen(m!.lastRating)).toBe(true);
    expect(t.get('192.0.2.2')).toBeUndefined();
  });

  it('keeps only a newer revision', () => {
    const t = new IpMemoryTable();
    t.keep('192.0.2.1', fields(5, { bad: 7 }));
    t.keep('192.0.2.1', fields(4, { bad: 1 }));
    t.keep('192.0.2.1', fields(5, { bad: 2 }));
    expect(t.get('192.0.2.1')?.badRatings).toBe(7);
    t.keep('192.0.2.1', fields(6, { bad: 8, lastRatingId: null, lastRating: null, lastNote: null, lastRatedAt: null }));
    expect(t.get('192.0.2.1')).toMatchObject({ badRatings: 8, lastRating: null });
  });

  it('a rating with no note reads as an empty note; each workspace reads its own note', () => {
    const a = new IpMemoryTable();
    const b = new IpMemoryTable();
    a.keep('192.0.2.1', fields(1, { lastNote: null, lastRating: 0 }));
    b.keep('192.0.2.1', fields(1, { lastNote: 'same' }));
    a.keep('192.0.2.2', fields(1, { lastNote: 'same', lastRating: 1 }));
    expect(a.get('192.0.2.1')?.lastRating).toMatchObject({ rating: 0, note: '' });
    expect(a.get('192.0.2.2')?.lastRating).toMatchObject({ rating: 1, note: 'same' });
    expect(b.get('192.0.2.1')?.lastRating?.note).toBe('same');
  });

  it('grows past its first capacity', () => {
    const t = new IpMemoryTable();
    for (let i = 0; i < 5000; i++)
      t.keep(`10.0.${i >> 8}.${i & 255}`, fields(1, { good: i, lastNote: `note ${i % 7}` }));
    for (let i = 0; i < 5000; i++)
      expect(t.get(`10.0.${i >> 8}.${i & 255}`)).toMatchObject({
        goodRatings: i,
        lastRating: { note: `note ${i % 7}` },
      });
  });
});
