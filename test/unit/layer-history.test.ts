/**
 * The model report's compact history scores an entity at a past instant exactly as the publisher would have: the
 * same score as summarizeEvidence over the entity's items that existed then (direct + rolled up, rollup.ts), to the
 * integer, for any mix of reports, ratings, feed listings, sources, times and scales.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { DimensionCode, Hierarchy } from '../../src/domain/network/types.ts';
import { summarizeEvidence, type EvidenceItem } from '../../src/domain/scoring/evidence.ts';
import { collectEntityEvidence } from '../../src/domain/scoring/rollup.ts';
import { LayerHistoryBuilder } from '../../src/domain/quality/layer-history.ts';

const T0 = Date.parse('2026-03-01T00:00:00Z');
const DAY = 86_400_000;
const IPS = ['10.0.0.1', '10.0.0.2', '10.0.1.1', '10.0.1.2', '10.1.0.1', '10.1.0.2'];

/** A small made-up hierarchy: two /24s per /16 AS, one country. */
function hierarchyOf(ip: string): Hierarchy {
  const [, b, c] = ip.split('.');
  const entity = (code: DimensionCode, key: string, size: number) => ({
    code,
    entity: { code, key, name: key, size },
    reason: null,
  });
  return {
    ip,
    version: 4,
    special: null,
    dimensions: [
      entity('ip', ip, 1),
      entity('subnet', `10.${b}.${c}.0/24`, 256),
      entity('asn', `AS${b}`, 65_536),
      entity('country', 'ZZ', 16_777_216),
    ],
  } as Hierarchy;
}

const itemArb = fc.oneof(
  fc.record({
    type: fc.constant('report' as const),
    outcomeCode: fc.constantFrom('fraud_confirmed', 'spam', 'legitimate', 'false_positive', 'not_a_code'),
    severity: fc.constantFrom('low', 'high', 'critical'),
    at: fc.integer({ min: -20, max: 5 }).map((d) => new Date(T0 + (d * DAY) / 2)),
    reporter: fc.constantFrom('ws:1', 'ws:2', 'ws:3'),
  }),
  fc.record({
    type: fc.constant('rating' as const),
    rating: fc.constantFrom(-1 as const, 0 as const, 1 as const),
    at: fc.integer({ min: -20, max: 5 }).map((d) => new Date(T0 + (d * DAY) / 2)),
    reporter: fc.constantFrom('ws:1', 'ws:2'),
  }),
  fc.record({
    type: fc.constant('feed' as const),
    feed: fc.constantFrom('f1', 'f2'),
    weight: fc.constantFrom(0.3, 1),
    at: fc.integer({ min: -20, max: 5 }).map((d) => new Date(T0 + (d * DAY) / 2)),
  }),
);
const entry = fc.record({
  ip: fc.constantFrom(...IPS),
  item: itemArb as fc.Arbitrary<EvidenceItem>,
});
const directEntry = fc.record({
  subnet: fc.constantFrom('10.0.0.0/24', '10.1.0.0/24'),
  scale: fc.constantFrom(1, 1 / 16),
  item: itemArb as fc.Arbitrary<EvidenceItem>,
});

describe('compact layer history', () => {
  it('scores every entity at t as summarizeEvidence does over the evidence known at t', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(entry, { maxLength: 40 }),
        fc.array(directEntry, { maxLength: 4 }),
        fc.integer({ min: -12, max: 6 }),
        async (entries, direct, tHalfDays) => {
          const t = T0 + (tHalfDays * DAY) / 2;
          const builder = new LayerHistoryBuilder();
          for (const e of entries) builder.addIp(e.ip, e.item);
          for (const d of direct) builder.addDirect('subnet', d.subnet, { ...d.item, scale: d.scale });
          const layer = await builder.seal(hierarchyOf);

          const known = (i: EvidenceItem) => i.at.getTime() <= t;
          const byIp = new Map<string, EvidenceItem[]>();
          for (const e of entries) if (known(e.item)) byIp.set(e.ip, [...(byIp.get(e.ip) ?? []), e.item]);
          const reference = collectEntityEvidence(
            [...byIp].map(([ip, items]) => ({ hierarchy: hierarchyOf(ip), items })),
            direct
              .filter((d) => known(d.item))
              .map((d) => ({ code: 'subnet' as const, key: d.subnet, items: [{ ...d.item, scale: d.scale }] })),
          );
          for (const code of ['ip', 'subnet', 'asn', 'country'] as const) {
            const keys = new Set([...(reference.get(code)?.keys() ?? [])]);
            for (const ip of IPS) keys.add(hierarchyOf(ip).dimensions.find((d) => d.code === code)!.entity!.key);
            for (const key of keys) {
              const items = reference.get(code)?.get(key)?.items ?? [];
              const expected = items.length ? summarizeEvidence(items, new Date(t), code).score : 0;
              expect([code, key, await layer.scoreAt(code, key, t)]).toEqual([code, key, expected]);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('tells when an IP was said to be bad: harmful reports and bad ratings, not feeds or good words', async () => {
    const b = new LayerHistoryBuilder();
    const at = (d: number) => new Date(T0 + d * DAY);
    b.addIp('10.0.0.1', { type: 'report', outcomeCode: 'spam', severity: 'low', at: at(2), reporter: 'ws:1' });
    b.addIp('10.0.0.1', { type: 'rating', rating: -1, at: at(1), reporter: 'ws:2' });
    b.addIp('10.0.0.1', { type: 'feed', feed: 'f', weight: 1, at: at(0) });
    b.addIp('10.0.0.1', { type: 'report', outcomeCode: 'legitimate', severity: 'low', at: at(3), reporter: 'ws:1' });
    b.addIp('10.0.0.2', { type: 'rating', rating: 0, at: at(1), reporter: 'ws:2' });
    const layer = await b.seal(hierarchyOf);
    expect(layer.badTimes('10.0.0.1').sort()).toEqual([at(1).getTime(), at(2).getTime()]);
    expect(layer.badTimes('10.0.0.2')).toEqual([]);
    expect(layer.ips).toEqual(['10.0.0.1', '10.0.0.2']);
  });
});
