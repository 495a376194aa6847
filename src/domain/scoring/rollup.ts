/**
 * Roll-up: an IP's evidence also counts toward its subnet, isp, asn, org, city, region and
 * country, weighted by how many addresses the entity holds.
 *
 * FORMULA
 *   - Each item of an IP is copied to every matched non-ip entity E of that IP's hierarchy with
 *       scale  = rollupWeight(effectiveSize(size_E, version)) = 1 / √size        (1 for size 1)
 *       origin = the IP's canonical text
 *     and summarised with the entity's own direct items (reports whose subject is the AS, a feed
 *     listing of the subnet, …) by `summarizeEvidence` (see evidence.ts).
 *   - IPv6 sizes are counted in /64 units (size / 2^64, at least 1): a /64 is what one site
 *     gets, so it plays the part one address plays in IPv4.
 *   - Per-IP damping: inside each source, an IP's inherited mass is saturated on its own before
 *     scaling (evidence.ts step 4), so one workspace reporting one IP a hundred times moves
 *     its /24 by at most 2/16 of mass (score ≈ 6).
 *   - Breadth: k distinct bad IPs add k separate terms, so an entity's mass grows with the
 *     number of bad IPs relative to √size: in a /24 (weight 1/16) sixteen bad IPs weigh as much
 *     as one IP; 50 IPs reported by different workspaces drive a /24 to ≈ 80 (by one workspace:
 *     ≈ 55), one IP to ≈ 3.
 *     A country of 2^30 addresses (weight 1/32768) does not move for one IP (0) and reaches
 *     only "low" (≈ 15) with ten thousand.
 *   - Special-purpose addresses roll up nowhere (they belong to no network or place).
 */
import type { DimensionCode, Hierarchy } from '../network/types.ts';
import { summarizeEvidence, type EntitySummary, type EvidenceItem } from './evidence.ts';
import { scoringDimensions } from './hierarchy.ts';

export type IpEvidence = { hierarchy: Hierarchy; items: readonly EvidenceItem[] };

/** Evidence whose subject is the entity itself (a report about an AS, a feed listing a subnet, …). */
export type DirectEvidence = { code: DimensionCode; key: string; name?: string; items: readonly EvidenceItem[] };

export type EntityEvidence = { code: DimensionCode; key: string; name: string; items: EvidenceItem[] };

export type EntitySummaries = Map<DimensionCode, Map<string, EntitySummary>>;

const V6_UNIT = 2 ** 64;

/** Address count in scoring units: IPv4 addresses, or IPv6 /64s. Never below 1. */
export function effectiveSize(size: number, version: 4 | 6): number {
  const units = version === 6 ? size / V6_UNIT : size;
  return Number.isFinite(units) && units > 1 ? units : 1;
}

/** Weight of one IP's evidence in an entity of `entitySize` units: 1/√size (1, 1/16 for a /24, 1/256 for a /16). */
export function rollupWeight(entitySize: number): number {
  return Number.isFinite(entitySize) && entitySize > 1 ? 1 / Math.sqrt(entitySize) : 1;
}

function slot(
  out: Map<DimensionCode, Map<string, EntityEvidence>>,
  code: DimensionCode,
  key: string,
  name: string | undefined,
): EntityEvidence {
  let byKey = out.get(code);
  if (!byKey) out.set(code, (byKey = new Map()));
  let entry = byKey.get(key);
  if (!entry) byKey.set(key, (entry = { code, key, name: name ?? key, items: [] }));
  else if (name !== undefined && entry.name === entry.key) entry.name = name;
  return entry;
}

/** For every entity key of every dimension, the evidence items it receives (direct + rolled up). */
export function collectEntityEvidence(
  ips: Iterable<IpEvidence>,
  direct: Iterable<DirectEvidence> = [],
): Map<DimensionCode, Map<string, EntityEvidence>> {
  const out = new Map<DimensionCode, Map<string, EntityEvidence>>();
  for (const d of direct) slot(out, d.code, d.key, d.name).items.push(...d.items);
  for (const { hierarchy, items } of ips) {
    if (items.length === 0) continue;
    for (const dim of scoringDimensions(hierarchy)) {
      if (dim.entity === null) continue;
      const target = slot(out, dim.code, dim.entity.key, dim.entity.name);
      if (dim.code === 'ip') {
        target.items.push(...items);
        continue;
      }
      const weight = rollupWeight(effectiveSize(dim.entity.size, hierarchy.version));
      for (const item of items) {
        target.items.push({ ...item, scale: (item.scale ?? 1) * weight, origin: hierarchy.ip });
      }
    }
  }
  return out;
}

/** Summaries for every entity that received any evidence, by dimension then key. */
export function rollUp(ips: Iterable<IpEvidence>, direct: Iterable<DirectEvidence>, now: Date): EntitySummaries {
  const out: EntitySummaries = new Map();
  for (const [code, byKey] of collectEntityEvidence(ips, direct)) {
    const summaries = new Map<string, EntitySummary>();
    for (const [key, entry] of byKey) summaries.set(key, summarizeEvidence(entry.items, now, code));
    out.set(code, summaries);
  }
  return out;
}
