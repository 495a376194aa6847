/**
 * scoreIp: shape, examples, and the properties the API promises (bounded, monotone, explained,
 * stable, special addresses) checked with fast-check over random hierarchies and summaries.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DIMENSION_CODES, type DimensionCode, type Hierarchy } from '../../src/domain/network/types.ts';
import type { EntitySummary, EvidenceItem } from '../../src/domain/scoring/evidence.ts';
import { riskLevel } from '../../src/domain/scoring/levels.ts';
import { rollUp } from '../../src/domain/scoring/rollup.ts';
import {
  DIMENSION_WEIGHTS,
  NO_EVIDENCE_REASON,
  scoreIp,
  type PublishedLookup,
} from '../../src/domain/scoring/score.ts';

const NOW = new Date('2026-03-01T00:00:00Z');
const COUNTS = { reports: 1, badRatings: 0, neutralRatings: 0, goodRatings: 0, feedListings: 0 };
const summary = (score: number, counts = COUNTS): EntitySummary => ({
  score,
  level: riskLevel(score),
  counts,
  reporters: 1,
  firstSeen: NOW,
  lastSeen: NOW,
});

function hierarchy(present: Partial<Record<DimensionCode, boolean>> = {}, special = false): Hierarchy {
  return {
    ip: '203.0.113.7',
    version: 4,
    subnetSource: special ? 'none' : 'announced',
    special: special ? { cidr: '203.0.113.0/24', name: 'Documentation (TEST-NET-3)', reason: 'RFC 5737' } : null,
    dimensions: DIMENSION_CODES.map((code) =>
      (present[code] ?? true)
        ? {
            code,
            entity: { code, key: `${code}-key`, name: `${code} name`, size: code === 'ip' ? 1 : 4096 },
            reason: null,
          }
        : { code, entity: null, reason: `no ${code} in the data` },
    ),
  };
}

const lookupOf =
  (scores: Partial<Record<DimensionCode, number>>): PublishedLookup =>
  (code, key) =>
    scores[code] !== undefined && key === `${code}-key` ? summary(scores[code]) : undefined;

describe('scoreIp: examples', () => {
  it('returns all eight dimensions in order, unmatched ones explained', () => {
    const result = scoreIp(hierarchy({ city: false }), lookupOf({ ip: 50, country: 20 }));
    expect(result.dimensions.map((d) => d.code)).toEqual([...DIMENSION_CODES]);
    expect(result.dimensions[0]).toEqual({
      code: 'ip',
      matched: true,
      score: 50,
      entity: { key: 'ip-key', name: 'ip name' },
      level: 'medium',
      weight: 1,
      contribution: result.dimensions[0]!.contribution,
      source: 'published',
      evidence: COUNTS,
      reason: null,
      reported: {
        countsByOutcome: {},
        sources: 1,
        lastReportedAt: result.dimensions[0]!.reported.lastReportedAt,
        feeds: [],
      },
    });
    expect(result.dimensions.find((d) => d.code === 'city')).toMatchObject({
      matched: false,
      entity: null,
      reason: 'no city in the data',
      contribution: 0,
      level: null,
    });
    expect(result.dimensions.find((d) => d.code === 'asn')).toMatchObject({
      matched: false,
      entity: { key: 'asn-key' },
      reason: NO_EVIDENCE_REASON,
      score: 0,
    });
    // noisy-OR: 1 − (1 − 0.5)(1 − 0.1·0.2) = 0.51
    expect({
      overall: result.overallScore,
      level: result.overallRiskLevel,
      matched: result.matchedCount,
      driver: result.driver,
    }).toEqual({ overall: 51, level: 'medium', matched: 2, driver: 'ip' });
    expect(result.dimensions.reduce((a, d) => a + d.contribution, 0)).toBe(51);
  });

  it('keeps a bad country from painting a clean IP: a country at 100 alone gives 10', () => {
    expect(scoreIp(hierarchy(), lookupOf({ country: 100 })).overallScore).toBe(10);
    expect(scoreIp(hierarchy(), lookupOf({ ip: 100 })).overallScore).toBe(100);
    expect(scoreIp(hierarchy(), lookupOf({})).driver).toBeNull();
  });

  it('breaks a tie for driver in favour of the more specific dimension', () => {
    const r = scoreIp(hierarchy(), lookupOf({ isp: 50, org: 50 }));
    expect(r.driver).toBe('isp');
    expect(r.dimensions.filter((d) => d.contribution > 0).map((d) => [d.code, d.contribution])).toEqual([
      ['isp', 10],
      ['org', 10],
    ]); // one family: overall 0.4 · 50 = 20, not 1 − 0.8² = 36 (decision 0038)
  });

  it('merges published and workspace evidence with max and names the source', () => {
    const pub = lookupOf({ ip: 30, subnet: 70 });
    const ctx: PublishedLookup = (code) =>
      code === 'ip' ? summary(60, { ...COUNTS, reports: 4 }) : code === 'asn' ? summary(5) : undefined;
    const dims = scoreIp(hierarchy(), pub, ctx).dimensions;
    expect(dims.filter((d) => d.matched).map((d) => [d.code, d.score, d.source, d.evidence?.reports])).toEqual([
      ['ip', 60, 'both', 4],
      ['subnet', 70, 'published', 1],
      ['asn', 5, 'workspace', 1],
    ]);
  });

  it('lets only the ip dimension match for a special-purpose address', () => {
    const everything = lookupOf(Object.fromEntries(DIMENSION_CODES.map((c) => [c, 90])));
    const result = scoreIp(hierarchy({}, true), everything, everything);
    expect(result.dimensions.filter((d) => d.matched).map((d) => d.code)).toEqual(['ip']);
    expect(result.matchedCount).toBe(1);
  });
});

// ---------- properties ----------
const scoresArb = fc.record(
  Object.fromEntries(DIMENSION_CODES.map((c) => [c, fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined })])),
) as fc.Arbitrary<Partial<Record<DimensionCode, number>>>;
const presentArb = fc.record(Object.fromEntries(DIMENSION_CODES.map((c) => [c, fc.boolean()]))) as fc.Arbitrary<
  Record<DimensionCode, boolean>
>;
const caseArb = fc.record({
  present: presentArb,
  special: fc.boolean(),
  pub: scoresArb,
  ctx: fc.option(scoresArb, { nil: undefined }),
});
type Scores = Partial<Record<DimensionCode, number>>;
type Case = { present: Record<DimensionCode, boolean>; special: boolean; pub: Scores; ctx: Scores | undefined };
const run = (c: Case) => scoreIp(hierarchy(c.present, c.special), lookupOf(c.pub), c.ctx && lookupOf(c.ctx));

describe('scoreIp: properties', () => {
  it('is bounded, explained and stable', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const r = run(c);
        const ints = [r.overallScore, ...r.dimensions.flatMap((d) => [d.score, d.contribution])];
        expect(
          ints.every((n) => Number.isInteger(n) && n >= 0 && n <= 100),
          JSON.stringify(ints),
        ).toBe(true);
        expect(r.dimensions.map((d) => d.code)).toEqual([...DIMENSION_CODES]);
        expect(r.dimensions.reduce((a, d) => a + d.contribution, 0)).toBe(r.overallScore);
        expect(r.dimensions.filter((d) => !d.matched).every((d) => d.contribution === 0 && d.score === 0)).toBe(true);
        expect(r.matchedCount).toBe(r.dimensions.filter((d) => d.matched).length);
        if (r.driver !== null) {
          const top = Math.max(...r.dimensions.map((d) => d.contribution));
          expect(r.dimensions.find((d) => d.code === r.driver)?.contribution).toBe(top);
        } else {
          expect(r.overallScore).toBe(0);
        }
        if (c.special) expect(r.dimensions.filter((d) => d.code !== 'ip').some((d) => d.matched)).toBe(false);
        expect(run(c)).toEqual(r);
        expect(r.dimensions.every((d) => d.weight === DIMENSION_WEIGHTS[d.code])).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('never lowers the overall score when any published or workspace score rises', () => {
    fc.assert(
      fc.property(
        caseArb,
        fc.constantFrom(...DIMENSION_CODES),
        fc.integer({ min: 0, max: 100 }),
        fc.boolean(),
        (c, code, raise, inContext) => {
          const before = run(c).overallScore;
          const target = inContext ? { ...(c.ctx ?? {}) } : { ...c.pub };
          target[code] = Math.min(100, (target[code] ?? 0) + raise);
          const after = run(inContext ? { ...c, ctx: target } : { ...c, pub: target }).overallScore;
          expect(after).toBeGreaterThanOrEqual(before);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('end to end: bad evidence on the IP never lowers its overall score, good never raises it', () => {
    const h: Hierarchy = { ...hierarchy(), ip: 'ip-key' };
    const item = (r: string, o: string): EvidenceItem => ({
      type: 'report',
      outcomeCode: o,
      severity: 'high',
      at: NOW,
      reporter: r,
    });
    const itemArb = fc
      .tuple(fc.constantFrom('a', 'b', 'c'), fc.constantFrom('spam', 'chargeback', 'legitimate', 'false_positive'))
      .map(([r, o]) => item(r, o));
    const overall = (items: EvidenceItem[]) => {
      const summaries = rollUp([{ hierarchy: h, items }], [], NOW);
      return scoreIp(h, (code, key) => summaries.get(code)?.get(key)).overallScore;
    };
    fc.assert(
      fc.property(fc.array(itemArb, { maxLength: 10 }), fc.constantFrom('a', 'b', 'c', 'd'), (items, r) => {
        expect(overall([...items, item(r, 'fraud_confirmed')])).toBeGreaterThanOrEqual(overall(items));
        expect(overall([...items, item(r, 'false_positive')])).toBeLessThanOrEqual(overall(items));
      }),
      { numRuns: 300 },
    );
  });
});
