import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AsnTotals, FamilyTotals } from '../../src/domain/network/sizes.ts';

/** What a worker's index goes through on its way to the main thread (load-in-worker.ts). */
const cloned = <T>(value: T): T => structuredClone(value);

describe('entity sizes: sums while loading, the same answers once sealed and cloned', () => {
  it('AsnTotals answers every AS number (and 0 for unknown ones) alike before and after seal and clone', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom(4 as const, 6 as const),
            fc.integer({ min: 1, max: 4_294_967_295 }),
            fc.double({ min: 1, max: 2 ** 96, noNaN: true }),
          ),
          { maxLength: 200 },
        ),
        fc.array(fc.integer({ min: 0, max: 4_294_967_295 }), { maxLength: 20 }),
        (adds, probes) => {
          const totals = new AsnTotals();
          const expected = { 4: new Map<number, number>(), 6: new Map<number, number>() };
          for (const [version, asn, addresses] of adds) {
            totals.add(version, asn, addresses);
            expected[version].set(asn, (expected[version].get(asn) ?? 0) + addresses);
          }
          const asked = [...adds.map(([, asn]) => asn), ...probes];
          const before = asked.flatMap((asn) => [totals.get(4, asn), totals.get(6, asn)]);
          expect(before).toEqual(asked.flatMap((asn) => [expected[4].get(asn) ?? 0, expected[6].get(asn) ?? 0]));
          totals.seal();
          const revived = AsnTotals.revive(cloned(totals));
          expect(asked.flatMap((asn) => [revived.get(4, asn), revived.get(6, asn)])).toEqual(before);
        },
      ),
    );
  });

  it('FamilyTotals keeps per-family sums (beyond 2**53 too) through seal and clone, 0 past the end', () => {
    const totals = new FamilyTotals();
    totals.add(4, 0, 256);
    totals.add(4, 2, 2 ** 32);
    totals.add(4, 2, 1);
    totals.add(6, 1, 2 ** 96);
    totals.seal();
    const revived = FamilyTotals.revive(cloned(totals));
    expect([0, 1, 2, 3].map((id) => revived.get(4, id))).toEqual([256, 0, 2 ** 32 + 1, 0]);
    expect([0, 1, 2].map((id) => revived.get(6, id))).toEqual([0, 2 ** 96, 0]);
  });
});
