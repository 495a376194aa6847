import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { areaUnder, rocAuc, rocCurve, type Sample } from '../../src/domain/quality/auc.ts';
import { calibrationError, decileOf, reliabilityTable } from '../../src/domain/quality/reliability.ts';
import { inversions, levelTable, precisionOf } from '../../src/domain/quality/levels.ts';
import { earlyWarning } from '../../src/domain/quality/early-warning.ts';
import { checkTargets, type TargetInput } from '../../src/domain/quality/targets.ts';

const s = (score: number, bad: boolean): Sample => ({ score, bad });

describe('ROC AUC against hand-computed cases', () => {
  it('is 1 when every bad IP scores above every good one, 0 when below', () => {
    expect(rocAuc([s(10, false), s(20, false), s(80, true), s(90, true)])).toBe(1);
    expect(rocAuc([s(10, true), s(20, true), s(80, false), s(90, false)])).toBe(0);
  });

  it('counts a tie between a bad and a good IP as a half', () => {
    // pairs (bad, good): (50,50) tie = 0.5, (50,10) win = 1 → 1.5 / 2
    expect(rocAuc([s(50, true), s(50, false), s(10, false)])).toBe(0.75);
    expect(rocAuc([s(30, true), s(30, false)])).toBe(0.5);
  });

  it('counts pairs: 2 bad × 3 good, 5 of 6 pairs ordered', () => {
    // bad 70 beats 10, 20, 60; bad 40 beats 10, 20 but not 60 → 5/6
    expect(rocAuc([s(70, true), s(40, true), s(10, false), s(20, false), s(60, false)])).toBeCloseTo(5 / 6, 12);
  });

  it('is null when a class is empty', () => {
    expect(rocAuc([])).toBeNull();
    expect(rocAuc([s(1, true)])).toBeNull();
    expect(rocAuc([s(1, false), s(2, false)])).toBeNull();
  });

  it('equals the brute-force pair count and the area under the ROC curve (property)', () => {
    const samples = fc.array(fc.record({ score: fc.integer({ min: 0, max: 100 }), bad: fc.boolean() }), {
      minLength: 2,
      maxLength: 60,
    });
    fc.assert(
      fc.property(samples, (xs) => {
        const bad = xs.filter((x) => x.bad);
        const good = xs.filter((x) => !x.bad);
        const auc = rocAuc(xs);
        if (!bad.length || !good.length) return auc === null;
        let wins = 0;
        for (const b of bad) for (const g of good) wins += b.score > g.score ? 1 : b.score === g.score ? 0.5 : 0;
        const brute = wins / (bad.length * good.length);
        const curve = rocCurve(xs);
        return (
          Math.abs(auc! - brute) < 1e-9 &&
          Math.abs(areaUnder(curve) - brute) < 1e-9 &&
          curve.at(-1)!.fpr === 1 &&
          curve.at(-1)!.tpr === 1
        );
      }),
    );
  });

  it('reads only the order: an increasing transform of the scores keeps it (property)', () => {
    const samples = fc.array(fc.record({ score: fc.integer({ min: 0, max: 100 }), bad: fc.boolean() }), {
      minLength: 2,
      maxLength: 40,
    });
    fc.assert(
      fc.property(samples, (xs) => rocAuc(xs) === rocAuc(xs.map((x) => ({ ...x, score: x.score * x.score + 3 })))),
    );
  });
});

describe('reliability table and calibration error against hand-computed cases', () => {
  it('puts scores in deciles, 90-100 together', () => {
    expect([0, 9, 10, 59, 89, 90, 99, 100].map(decileOf)).toEqual([0, 0, 1, 5, 8, 9, 9, 9]);
  });

  it('counts, averages and rates each decile', () => {
    const bins = reliabilityTable([s(5, false), s(15, false), s(95, true), s(100, true), s(92, false)]);
    expect(bins).toHaveLength(10);
    expect(bins[0]).toMatchObject({ min: 0, max: 9, count: 1, bad: 0, meanScore: 5, badRate: 0 });
    expect(bins[1]).toMatchObject({ count: 1, bad: 0, meanScore: 15, badRate: 0 });
    expect(bins[5]).toMatchObject({ count: 0, meanScore: null, badRate: null });
    expect(bins[9]!.count).toBe(3);
    expect(bins[9]!.badRate).toBeCloseTo(2 / 3, 12);
    expect(bins[9]!.meanScore).toBeCloseTo(287 / 3, 12);
    // ECE = 1/5·|0.05−0| + 1/5·|0.15−0| + 3/5·|0.9567−0.6667|
    const expected = 0.2 * 0.05 + 0.2 * 0.15 + 0.6 * Math.abs(287 / 300 - 2 / 3);
    expect(calibrationError(bins)).toBeCloseTo(expected, 12);
  });

  it('is 0 for a perfectly calibrated table and null without samples', () => {
    const perfect = [s(50, true), s(50, false), s(0, false), s(0, false)];
    expect(calibrationError(reliabilityTable(perfect))).toBe(0);
    expect(calibrationError(reliabilityTable([]))).toBeNull();
  });
});

describe('level table', () => {
  const samples = [
    ...Array.from({ length: 8 }, () => s(2, false)),
    s(5, true), // minimal, bad
    s(20, false),
    s(40, true),
    s(40, false),
    s(70, true),
    s(70, true),
    s(70, false),
    s(90, true),
  ];

  it('holds count, precision and share of bad per level', () => {
    const rows = levelTable(samples);
    expect(rows.map((r) => [r.level, r.count, r.bad])).toEqual([
      ['minimal', 9, 1],
      ['low', 1, 0],
      ['medium', 2, 1],
      ['high', 3, 2],
      ['critical', 1, 1],
    ]);
    expect(rows[3]!.precision).toBeCloseTo(2 / 3, 12);
    expect(rows[3]!.shareOfBad).toBeCloseTo(2 / 5, 12);
    expect(precisionOf(rows, ['high', 'critical'])).toBe(3 / 4);
    expect(precisionOf(rows, [])).toBeNull();
  });

  it('finds inversions, ignoring levels with too few samples', () => {
    const rows = levelTable(samples);
    // minimal 1/9 > low 0/1: an inversion when every level counts, none when a level needs 2 samples
    expect(inversions(rows, 1)).toEqual(['low']);
    expect(inversions(rows, 2)).toEqual([]);
  });
});

describe('early warning', () => {
  it('is the share at medium or higher', () => {
    expect(earlyWarning([0, 29, 30, 60, 85])).toEqual({ cases: 5, warned: 3, share: 0.6 });
    expect(earlyWarning([])).toEqual({ cases: 0, warned: 0, share: null });
  });
});

describe('targets', () => {
  const good: TargetInput = {
    auc: 0.95,
    highCriticalPrecision: 0.9,
    levels: levelTable([
      ...Array.from({ length: 30 }, () => s(0, false)),
      ...Array.from({ length: 30 }, (_, i) => s(70, i < 27)),
    ]),
    earlyWarning: 0.6,
    hostileSubnetScore: 29,
    hostileAsnScore: 12,
  };

  it('are met by a good measure and each missed by its own failure', () => {
    expect(checkTargets(good).every((c) => c.met)).toBe(true);
    const missed = (m: TargetInput) =>
      checkTargets(m)
        .filter((c) => !c.met)
        .map((c) => c.name);
    expect(missed({ ...good, auc: 0.89 })).toEqual(['ROC AUC']);
    expect(missed({ ...good, auc: null })).toEqual(['ROC AUC']);
    expect(missed({ ...good, highCriticalPrecision: 0.79 })).toEqual(['precision high+critical']);
    expect(missed({ ...good, earlyWarning: 0.49 })).toEqual(['early warning']);
    expect(missed({ ...good, hostileSubnetScore: 30 })).toEqual(['hostile reporter, benign /24']);
    expect(missed({ ...good, hostileAsnScore: 60 })).toEqual(['hostile reporter, benign AS']);
    const inverted = levelTable([
      ...Array.from({ length: 30 }, (_, i) => s(0, i < 20)),
      ...Array.from({ length: 30 }, (_, i) => s(70, i < 10)),
    ]);
    expect(missed({ ...good, levels: inverted })).toEqual(['bad rate rises with level']);
  });
});
