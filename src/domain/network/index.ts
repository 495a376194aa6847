/**
 * The in-memory network data index: canonical IP → eight-dimension report hierarchy.
 *
 * Dimension keys (stable; used as summary keys and in URLs):
 *   ip       the canonical IP text ("1.1.1.1", "2606:4700:4700::1111"); size 1.
 *   subnet   CIDR text of the announced prefix holding the IP ("1.1.1.0/24"): the largest block
 *            inside the announced range that contains the IP (cidr.ts); /24 or /48 fallback.
 *   asn      "AS<number>" ("AS13335").
 *   org      registered AS organisation, lower-cased, whitespace collapsed ("cloudflare, inc.").
 *   isp      the org's brand, lower-cased ("cloudflare"): see isp-brand.ts for the rule.
 *   city     "<CC>-<region slug>-<city slug>" ("US-california-san_jose"): see place.ts.
 *   region   "<CC>-<region slug>" ("US-california").
 *   country  ISO 3166-1 alpha-2 upper case ("AU").
 * Sizes are per address family of the queried IP (sizes.ts).
 */
export { DIMENSION_CODES } from './types.ts';
export type {
  DimensionCode,
  DimensionEntity,
  DimensionMatch,
  Hierarchy,
  NetworkDataOptions,
  NetworkIndex,
  NetworkStats,
  SpecialRange,
} from './types.ts';
export { loadNetworkData, defaultDataFiles } from './load.ts';
export { findSpecialRange, SPECIAL_RANGES } from './special-ranges.ts';
export { ispBrandName, ispKeyOf, orgKeyOf } from './isp-brand.ts';
export { cityKey, regionKey, countryKey, slug, placeFromRecord, type Place } from './place.ts';
export { prefixInsideRange, prefixSize } from './cidr.ts';
export { parseIp } from './ip.ts';
