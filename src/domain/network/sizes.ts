/**
 * Entity sizes: approximately how many addresses each asn/org/isp/city/region/country holds,
 * precomputed at load and kept PER ADDRESS FAMILY. An entity's size is reported in the family
 * of the queried IP: one IPv6 /32 (2**96 addresses) would otherwise swamp every IPv4 count and
 * make sizes useless for comparing IPv4 entities. Sizes come from:
 *   - asn/org/isp: the sum of the announced ranges (CSV) or, for operator MaxMind ASN/ISP
 *     files, of the networks mapped to each record (exact tree walk);
 *   - city/region/country: an exact walk of the city mmdb search tree (addresses per record).
 *
 * Totals are indexed by a dense entity number, not by key: string-keyed Maps of every (family, key)
 * cost a quarter of the whole network index in key strings, hash tables and boxed numbers
 * (docs/decisions/0014-network-entity-sizes-in-arrays.md). Keys are numbered while loading
 * (`KeyNumbers`, dropped afterwards) and rebuilt only for the entities a request meets.
 */
import { revive } from './revive.ts';

type Family = 4 | 6;

/**
 * Addresses per entity number, per family: arrays while loading, Float64Arrays once sealed (a structured clone
 * of a number array boxes every size that is not a small integer, one heap object each).
 */
export class FamilyTotals {
  private totals: Record<Family, number[] | Float64Array> = { 4: [], 6: [] };

  /** While loading only: a sealed table holds fixed-size arrays. */
  add(version: Family, id: number, addresses: number): void {
    const totals = this.totals[version] as number[];
    // grow densely: assigning far past the end would turn the array into a slow dictionary
    while (totals.length <= id) totals.push(0);
    totals[id] = totals[id]! + addresses;
  }

  get(version: Family, id: number): number {
    return this.totals[version][id] ?? 0;
  }

  seal(): void {
    this.totals = { 4: Float64Array.from(this.totals[4]), 6: Float64Array.from(this.totals[6]) };
  }

  static revive(clone: FamilyTotals): FamilyTotals {
    return revive(FamilyTotals, clone);
  }
}

type AsnColumns = { asns: Uint32Array; sizes: Float64Array };

/**
 * Addresses per AS number, per family: summed in Maps while loading, then kept as sorted AS numbers and their
 * sizes, found by binary search (the Maps of ~80,000 AS numbers cost ~5 MB of hash tables and boxed sizes).
 */
export class AsnTotals {
  private loading: Record<Family, Map<number, number>> | null = { 4: new Map(), 6: new Map() };
  private sealed: Record<Family, AsnColumns> | null = null;

  add(version: Family, asn: number, addresses: number): void {
    const totals = this.loading![version];
    totals.set(asn, (totals.get(asn) ?? 0) + addresses);
  }

  get(version: Family, asn: number): number {
    if (this.loading) return this.loading[version].get(asn) ?? 0;
    const { asns, sizes } = this.sealed![version];
    for (let lo = 0, hi = asns.length - 1; lo <= hi; ) {
      const mid = (lo + hi) >>> 1;
      const at = asns[mid]!;
      if (at === asn) return sizes[mid]!;
      if (at < asn) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }

  seal(): void {
    if (!this.loading) return;
    const columns = (totals: Map<number, number>): AsnColumns => {
      const asns = Uint32Array.from(totals.keys()).sort();
      return { asns, sizes: Float64Array.from(asns, (asn) => totals.get(asn)!) };
    };
    this.sealed = { 4: columns(this.loading[4]), 6: columns(this.loading[6]) };
    this.loading = null;
  }

  static revive(clone: AsnTotals): AsnTotals {
    return revive(AsnTotals, clone);
  }
}

/** Dense numbers for keys, in first-seen order; `forget()` drops the map once loading is over. */
export class KeyNumbers<K> {
  private ids = new Map<K, number>();

  of(key: K): number {
    let id = this.ids.get(key);
    if (id === undefined) this.ids.set(key, (id = this.ids.size));
    return id;
  }

  forget(): void {
    this.ids = new Map();
  }
}
