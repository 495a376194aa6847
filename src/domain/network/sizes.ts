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

/** Addresses per entity number, per family. */
export class FamilyTotals {
  private readonly totals: Record<Family, number[]> = { 4: [], 6: [] };

  add(version: Family, id: number, addresses: number): void {
    const totals = this.totals[version];
    // grow densely: assigning far past the end would turn the array into a slow dictionary
    while (totals.length <= id) totals.push(0);
    totals[id] = totals[id]! + addresses;
  }

  get(version: Family, id: number): number {
    return this.totals[version][id] ?? 0;
  }

  static revive(clone: FamilyTotals): FamilyTotals {
    return revive(FamilyTotals, clone);
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
