/**
 * Public types of the network data index: an IP resolved into the eight report dimensions.
 * Key formats (stable: used as summary keys and in URLs) are documented in `keys.ts`.
 */
export type DimensionCode = 'ip' | 'subnet' | 'isp' | 'asn' | 'org' | 'city' | 'region' | 'country';

/** Every dimension, most specific first. `Hierarchy.dimensions` always follows this order. */
export const DIMENSION_CODES: readonly DimensionCode[] = Object.freeze([
  'ip',
  'subnet',
  'isp',
  'asn',
  'org',
  'city',
  'region',
  'country',
] as const);

/**
 * One matched entity. `size` is the approximate number of addresses it holds, counted in the
 * address family of the queried IP (see `sizes.ts` for why families are not mixed). IPv6 sizes
 * are floats (a /32 is 2**96).
 */
export type DimensionEntity = { code: DimensionCode; key: string; name: string; size: number };

/** An IANA special-purpose block the IP falls in. */
export type SpecialRange = { cidr: string; name: string; reason: string };

export type DimensionMatch = { code: DimensionCode; entity: DimensionEntity | null; reason: string | null };

export type Hierarchy = {
  ip: string;
  version: 4 | 6;
  special: SpecialRange | null;
  /** One entry per code, in DIMENSION_CODES order; `entity` null with a `reason` when unmatched. */
  dimensions: DimensionMatch[];
  /** 'announced': prefix from routing/ASN data; 'fallback': /24 or /48; 'none': special address. */
  subnetSource: 'announced' | 'fallback' | 'none';
};

/** File paths; each defaults to the data shipped in the npm packages (or unused for the MaxMind ones). */
export type NetworkDataOptions = {
  asnCsvV4?: string;
  asnCsvV6?: string;
  cityMmdbV4?: string;
  cityMmdbV6?: string;
  /** Operator-supplied GeoLite2/GeoIP2 City mmdb: replaces the packaged city data for both families. */
  maxmindCityMmdb?: string;
  /** Operator-supplied GeoLite2/GeoIP2 ASN mmdb: preferred over the CSV for asn/org/isp/subnet. */
  maxmindAsnMmdb?: string;
  /** Operator-supplied GeoIP2 ISP mmdb: `isp`/`organization`/`autonomous_system_number`; wins over ASN. */
  maxmindIspMmdb?: string;
};

export type NetworkStats = {
  loadMs: number;
  v4Ranges: number;
  v6Ranges: number;
  orgs: number;
  /** The on-disk image of the index (image.ts): read instead of building, written after building, or not kept. */
  image: 'read' | 'written' | 'off' | `not written: ${string}`;
};

export interface NetworkIndex {
  /** Resolve a canonical IP (as printed by `parseIp`). Throws only when the text is not an IP at all. */
  resolve(canonicalIp: string): Hierarchy;
  stats(): NetworkStats;
}
