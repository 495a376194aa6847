/**
 * Entity sizes: approximately how many addresses each asn/org/isp/city/region/country holds,
 * precomputed at load and kept PER ADDRESS FAMILY. An entity's size is reported in the family
 * of the queried IP: one IPv6 /32 (2**96 addresses) would otherwise swamp every IPv4 count and
 * make sizes useless for comparing IPv4 entities. Sizes come from:
 *   - asn/org/isp: the sum of the announced ranges (CSV) or, for operator MaxMind ASN/ISP
 *     files, of the networks mapped to each record (exact tree walk);
 *   - city/region/country: an exact walk of the city mmdb search tree (addresses per record).
 */
import type { DimensionCode } from './types.ts';

type Family = 4 | 6;
type SizedCode = Exclude<DimensionCode, 'ip' | 'subnet'>;

/** Addresses per (family, code, key). Keys are the dimension keys themselves: no composite strings. */
export class SizeBook {
  private readonly byFamily: Record<Family, Record<SizedCode, Map<string, number>>> = { 4: SizeBook.maps(), 6: SizeBook.maps() };

  private static maps(): Record<SizedCode, Map<string, number>> {
    return { isp: new Map(), asn: new Map(), org: new Map(), city: new Map(), region: new Map(), country: new Map() };
  }

  add(version: Family, code: SizedCode, key: string, addresses: number): void {
    const map = this.byFamily[version][code];
    map.set(key, (map.get(key) ?? 0) + addresses);
  }

  get(version: Family, code: SizedCode, key: string): number {
    return this.byFamily[version][code].get(key) ?? 0;
  }
}
