/**
 * One workspace's memory of the IPs it wrote about, in columns: a slot per IP (one map entry), its
 * counts and last rating in typed arrays, the last rating's note and time in one string array each.
 * Three objects and two strings per IP made the workspace memory the largest part of the heap that
 * grows with the data (docs/decisions/0025-publication-image.md); `get` builds the small frozen answer instead.
 */
import type { SubjectMemory } from '../../generated/prisma/client.ts';
import { withRoom } from '../../platform/typed-arrays.ts';
import type { OwnEvidence, OwnReported } from '../scoring/own-verdict.ts';

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
export type MemoryFields = Pick<
  SubjectMemory,
  | 'good'
  | 'neutral'
  | 'bad'
  | 'reports'
  | 'lastRatingId'
  | 'lastRating'
  | 'lastNote'
  | 'lastRatedAt'
  | 'revision'
  | 'ownBad'
  | 'ownGood'
  | 'ownBadAt'
  | 'ownGoodAt'
  | 'ownFloorAt'
> & { outcomes?: number[] | null | undefined };

const NO_RATING = -128;

const timeOrNull = (t: number) => (Number.isNaN(t) ? null : t);

export class IpMemoryTable {
  private readonly slots = new Map<string, number>();
  private revision = new Uint32Array(16);
  private good = new Uint32Array(16);
  private neutral = new Uint32Array(16);
  private bad = new Uint32Array(16);
  private reports = new Uint32Array(16);
  private lastRating = new Int8Array(16);
  /** The own-verdict sums and times (scoring/own-verdict.ts, OwnEvidence); NaN for a time that is null. */
  private ownBad = new Float64Array(16);
  private ownGood = new Float64Array(16);
  private ownBadAt = new Float64Array(16);
  private ownGoodAt = new Float64Array(16);
  private ownFloorAt = new Float64Array(16);
  /** Reports by outcome code (SubjectMemory.outcomes), as an index into `outcomeTuples`: most IPs share a few tuples. */
  private outcomeIds = new Uint32Array(16);
  /** The newest own report or rating: the newer side's time, or the last rating's (a neutral rating weighs nothing). */
  private lastAt = new Float64Array(16);
  private readonly outcomeTuples: Array<readonly number[]> = [Object.freeze([])];
  private readonly outcomeTupleIds = new Map<string, number>([['', 0]]);
  /** ISO 8601, formatted once when kept: formatting on every read cost more than the rest of the read. */
  private readonly lastRatedAt: string[] = [];
  private readonly lastNote: string[] = [];

  get(ip: string): IpMemory | undefined {
    const slot = this.slots.get(ip);
    if (slot === undefined) return undefined;
    const rating = this.lastRating[slot]!;
    return Object.freeze({
      goodRatings: this.good[slot]!,
      neutralRatings: this.neutral[slot]!,
      badRatings: this.bad[slot]!,
      lastRating:
        rating === NO_RATING
          ? null
          : Object.freeze({ rating, note: this.lastNote[slot]!, createdAt: this.lastRatedAt[slot]! }),
      reports: this.reports[slot]!,
    });
  }

  own(ip: string): OwnEvidence | undefined {
    const slot = this.slots.get(ip);
    if (slot === undefined) return undefined;
    return {
      bad: this.ownBad[slot]!,
      good: this.ownGood[slot]!,
      badAt: timeOrNull(this.ownBadAt[slot]!),
      goodAt: timeOrNull(this.ownGoodAt[slot]!),
      floorAt: timeOrNull(this.ownFloorAt[slot]!),
    };
  }

  /** What the workspace reported about the IP, live (scoring/reported.ts); undefined when it wrote nothing about it. */
  reported(ip: string): OwnReported | undefined {
    const slot = this.slots.get(ip);
    if (slot === undefined) return undefined;
    return {
      outcomes: this.outcomeTuples[this.outcomeIds[slot]!]!,
      any: this.reports[slot]! + this.good[slot]! + this.neutral[slot]! + this.bad[slot]! > 0,
      lastAt: timeOrNull(this.lastAt[slot]!),
    };
  }

  private outcomeId(outcomes: readonly number[] | null | undefined): number {
    const key = outcomes?.join(',') ?? '';
    let id = this.outcomeTupleIds.get(key);
    if (id === undefined) {
      id = this.outcomeTuples.push(Object.freeze([...outcomes!])) - 1;
      this.outcomeTupleIds.set(key, id);
    }
    return id;
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
    this.lastNote[slot] = rated ? (m.lastNote ?? '') : '';
    this.ownBad[slot] = m.ownBad;
    this.ownGood[slot] = m.ownGood;
    this.ownBadAt[slot] = m.ownBadAt?.getTime() ?? Number.NaN;
    this.ownGoodAt[slot] = m.ownGoodAt?.getTime() ?? Number.NaN;
    this.ownFloorAt[slot] = m.ownFloorAt?.getTime() ?? Number.NaN;
    this.outcomeIds[slot] = this.outcomeId(m.outcomes);
    // NaN (never) loses every comparison below, so the newest time that exists wins.
    let last = Number.NaN;
    for (const t of [m.ownBadAt, m.ownGoodAt, rated ? m.lastRatedAt : null])
      if (t && !(t.getTime() <= last)) last = t.getTime();
    this.lastAt[slot] = last;
  }

  private grow(need: number): void {
    this.revision = withRoom(this.revision, need);
    this.good = withRoom(this.good, need);
    this.neutral = withRoom(this.neutral, need);
    this.bad = withRoom(this.bad, need);
    this.reports = withRoom(this.reports, need);
    this.lastRating = withRoom(this.lastRating, need);
    this.ownBad = withRoom(this.ownBad, need);
    this.ownGood = withRoom(this.ownGood, need);
    this.ownBadAt = withRoom(this.ownBadAt, need);
    this.ownGoodAt = withRoom(this.ownGoodAt, need);
    this.ownFloorAt = withRoom(this.ownFloorAt, need);
    this.outcomeIds = withRoom(this.outcomeIds, need);
    this.lastAt = withRoom(this.lastAt, need);
  }
}
