/**
 * Builds the Hierarchy of one address from the special-purpose table, the owner index and the
 * geo index. Unmatched dimensions carry a reason a person can read; nothing here throws.
 */
import type { ParsedAddress } from './address-words.ts';
import type { GeoIndex } from './geo-index.ts';
import type { OwnerIndex } from './owner-index.ts';
import { findSpecialRange } from './special-ranges.ts';
import {
  DIMENSION_CODES,
  type DimensionCode,
  type DimensionEntity,
  type DimensionMatch,
  type Hierarchy,
} from './types.ts';

const NO_ROUTE = 'no announced route in the network data covers this address';
const NO_ORG = 'the network data names no organisation for this address';
const NO_ASN = 'the network data names no AS number for this address';
const NO_GEO = 'the geo data has no location for this address';
const NO_REGION = 'the geo data names no region for this address';
const NO_CITY = 'the geo data names no city for this address';

function match(code: DimensionCode, entity: DimensionEntity | null, whyNot: string): DimensionMatch {
  return entity === null ? { code, entity: null, reason: whyNot } : { code, entity, reason: null };
}

export function resolveAddress(address: ParsedAddress, owners: OwnerIndex, geo: GeoIndex): Hierarchy {
  const version = address.version;
  const ip: DimensionMatch = {
    code: 'ip',
    entity: { code: 'ip', key: address.canonical, name: address.canonical, size: 1 },
    reason: null,
  };
  const special = findSpecialRange(address.words);
  if (special !== null) {
    const reason = `${special.name} address (${special.cidr}): ${special.reason}`;
    return {
      ip: address.canonical,
      version,
      special,
      dimensions: DIMENSION_CODES.map((code) => (code === 'ip' ? ip : { code, entity: null, reason })),
      subnetSource: 'none',
    };
  }
  const owner = owners.lookup(address.words);
  const place = geo.lookup(address.words);
  const routed = owner.subnet.source === 'announced';
  const subnet: DimensionEntity = {
    code: 'subnet',
    key: owner.subnet.cidr,
    name: owner.subnet.cidr,
    size: owner.subnet.size,
  };
  const dims: DimensionMatch[] = [
    ip,
    { code: 'subnet', entity: subnet, reason: null },
    match('isp', owner.isp, routed ? NO_ORG : NO_ROUTE),
    match('asn', owner.asn, routed ? NO_ASN : NO_ROUTE),
    match('org', owner.org, routed ? NO_ORG : NO_ROUTE),
    match('city', place?.city ?? null, place ? NO_CITY : NO_GEO),
    match('region', place?.region ?? null, place ? NO_REGION : NO_GEO),
    match('country', place?.country ?? null, NO_GEO),
  ];
  return { ip: address.canonical, version, special: null, dimensions: dims, subnetSource: owner.subnet.source };
}
