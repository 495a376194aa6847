/**
 * One layer's evidence → one summary per dimension entity, computed exactly as
 * `rollUp(ips, direct, now)` of scoring/rollup.ts would (a unit test holds the two equal), but
 * ONE DIMENSION AT A TIME: `collectEntityEvidence` copies every IP item into all seven larger
 * entities at once (hundreds of MB of heap at 100k IPs: docs/decisions/0005-publication-snapshot-in-columns.md), while
 * here at most one dimension's copies are alive, and each entity's items are dropped as soon as
 * its summary is taken. Rows are yielded, so the writer can stream them into the database.
 */
import { DIMENSION_CODES, type DimensionCode, type DimensionEntity, type Hierarchy } from '../network/types.ts';
import { summarizeEvidence, type EntitySummary, type EvidenceItem } from '../scoring/evidence.ts';
import { scoringDimensions } from '../scoring/hierarchy.ts';
import { effectiveSize, rollupWeight } from '../scoring/rollup.ts';
import type { Layer } from './gather.ts';

export type SummaryRow = { code: DimensionCode; key: string; name: string; summary: EntitySummary };

/** What roll-up needs of a Hierarchy: its family and its entity per code (DIMENSION_CODES order). */
export type Placement = { ip: string; version: 4 | 6; entities: Array<DimensionEntity | null> };

export function placementOf(h: Hierarchy): Placement {
  return { ip: h.ip, version: h.version, entities: scoringDimensions(h).map((d) => d.entity) };
}

type Entry = { key: string; name: string; items: EvidenceItem[] };

/** Which entities to summarise (all when not given): a caller that reads a few entities skips the rest's work. */
export type EntityFilter = (code: DimensionCode, key: string) => boolean;

function collectDimension(
  code: DimensionCode,
  index: number,
  layer: Layer,
  placements: ReadonlyArray<[Placement, EvidenceItem[]]>,
  wanted: EntityFilter,
): Map<string, Entry> {
  const out = new Map<string, Entry>();
  for (const slot of layer.direct.values()) {
    if (slot.code !== code || !wanted(code, slot.key)) continue;
    const entry = out.get(slot.key);
    if (entry) for (const item of slot.items) entry.items.push(item);
    else out.set(slot.key, { key: slot.key, name: slot.name, items: slot.items.slice() });
  }
  for (const [placement, items] of placements) {
    const entity = placement.entities[index];
    if (!entity || !wanted(code, entity.key)) continue;
    let entry = out.get(entity.key);
    if (!entry) out.set(entity.key, (entry = { key: entity.key, name: entity.name, items: [] }));
    else if (entry.name === entry.key) entry.name = entity.name;
    if (code === 'ip') {
      for (const item of items) entry.items.push(item);
      continue;
    }
    const weight = rollupWeight(effectiveSize(entity.size, placement.version));
    for (const item of items) entry.items.push({ ...item, scale: (item.scale ?? 1) * weight, origin: placement.ip });
  }
  return out;
}

const everyEntity: EntityFilter = () => true;

/** Every entity of the layer that received evidence (or those `wanted` names), dimension by dimension. */
export function* summarizeLayer(
  layer: Layer,
  placementFor: (ip: string) => Placement,
  now: Date,
  wanted: EntityFilter = everyEntity,
): Generator<SummaryRow> {
  const placements: Array<[Placement, EvidenceItem[]]> = [];
  for (const [ip, items] of layer.ips) if (items.length > 0) placements.push([placementFor(ip), items]);
  for (let index = 0; index < DIMENSION_CODES.length; index++) {
    const code = DIMENSION_CODES[index]!;
    const entries = collectDimension(code, index, layer, placements, wanted);
    for (const [key, entry] of entries) {
      const summary = summarizeEvidence(entry.items, now, code);
      entries.delete(key); // release this entity's item copies before the next one
      yield { code, key, name: entry.name, summary };
    }
  }
}
