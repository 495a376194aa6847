/**
 * One workspace's memory of the IPs it wrote about, in columns: a slot per IP (one map entry), its
 * counts and last rating in typed arrays, the last rating's note and time in one string array each.
 * Three objects and two strings per IP made the workspace memory the largest part of the heap that
 * grows with the data (docs/decisions/0025-publication-image.md); `get` builds the small frozen answer instead.
 */
import type { SubjectMemory } from '../../generated/prisma/client.ts';
import { withRoom } from '../../platform/typed-arrays.ts';

/** What a workspace itself wrote about one IP, shown in its score responses. */
export type IpMemory = {
  goodRatings: number;
  neutralRatings: number;
  badRatings: number;
  lastRating: { rating: number; note: string; createdAt: string } | null;
  /** Reports naming the IP, as their subject or as a related subject. */
  reports: number;
};

/** The stored memory of one subject, as read from SubjectMemory or returned by a write. */
export type MemoryFields = Pick<SubjectMemory, 'good' | 'neutral' | 'bad' | 'reports' | 'lastRatingId' | 'lastRating' | 'lastNote' | 'lastRatedAt' | 'revision'>;

const NO_RATING = -128;

export class IpMemoryTable {
  private readonly slots = new Map<string, number>();
  private revision = new Uint32Array(16);
  private good = new Uint32Array(16);
  private neutral = new Uint32Array(16);
  private bad = new Uint32Array(16);
  private reports = new Uint32Array(16);
  private lastRating = new Int8Array(16);
  /** ISO 8601, formatted once when kept: formatting on every read cost more than the rest of the read. */
  private readonly lastRatedAt: string[] = [];
  private readonly lastNote: string[] = [];

  get(ip: string): IpMemory | undefined {
    const slot = this.slots.get(ip);
    if (slot === undefined) return undefined;
    const rating = this.lastRating[slot]!;
    return Object.freeze({
      goodRatings: this.good[slot]!, neutralRatings: this.neutral[slot]!, badRatings: this.bad[slot]!,
      lastRating: rating === NO_RATING ? null
        : Object.freeze({ rating, note: this.lastNote[slot]!, createdAt: this.lastRatedAt[slot]! }),
      reports: this.reports[slot]!,
    });
  }

  /** Keeps `m` unless the IP's held revision is as new or newer. */
  keep(ip: string, m: MemoryFields): void {
    let slot = this.slots.get(ip);
    if (slot !== undefined && this.revision[slot]! >= m.revision) return;
    if (slot === undefined) {
      slot = this.slots.size;
      this.slots.set(ip, slot);
      this.grow(slot + 1);
    }
    this.revision[slot] = m.revision;
    this.good[slot] = m.good;
    this.neutral[slot] = m.neutral;
    this.bad[slot] = m.bad;
    this.reports[slot] = m.reports;
    const rated = m.lastRatingId !== null;
    this.lastRating[slot] = rated ? m.lastRating! : NO_RATING;
    this.lastRatedAt[slot] = rated ? m.lastRatedAt!.toISOString() : '';
    this.lastNote[slot] = rated ? m.lastNote ?? '' : '';
  }

  private grow(need: number): void {
    this.revision = withRoom(this.revision, need);
    this.good = withRoom(this.good, need);
    this.neutral = withRoom(this.neutral, need);
    this.bad = withRoom(this.bad, need);
    this.reports = withRoom(this.reports, need);
    this.lastRating = withRoom(this.lastRating, need);
  }
}
