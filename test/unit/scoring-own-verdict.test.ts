/**
 * The caller's own verdict in its score (own-verdict.ts, score.ts, confidence.ts, layers.ts): the examples the risk
 * model states, and the properties the combination promises (bounded, monotone in bad evidence, a benign verdict
 * never raises, layers and contributions add up, stable), checked with fast-check.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DIMENSION_CODES, type DimensionCode, type Hierarchy } from '../../src/domain/network/types.ts';
import {
  type EntitySummary,
  type EvidenceCounts,
  type EvidenceItem,
  summarizeEvidence,
} from '../../src/domain/scoring/evidence.ts';
import { riskLevel } from '../../src/domain/scoring/levels.ts';
import {
  NO_OWN_EVIDENCE,
  OWN_FLOOR_SCORE,
  type OwnEvidence,
  ownEvidenceOf,
  ownVerdict,
} from '../../src/domain/scoring/own-verdict.ts';
import { type PublishedLookup, SLIVER_REASON, scoreIp } from '../../src/domain/scoring/score.ts';
import { OUTCOME_CODES, SEVERITIES } from '../../src/domain/scoring/weights.ts';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const DAY = 24 * 60 * 60 * 1000;
const COUNTS: EvidenceCounts = { reports: 1, badRatings: 0, neutralRatings: 0, goodRatings: 0, feedListings: 0 };
const summary = (score: number, reporters = 1): EntitySummary => ({
  score,
  level: riskLevel(score),
  counts: COUNTS,
  reporters,
  firstSeen: new Date(NOW),
  lastSeen: new Date(NOW),
});
const hierarchy: Hierarchy = {
  ip: 'ip-key',
  version: 4,
  subnetSource: 'announced',
  special: null,
  dimensions: DIMENSION_CODES.map((code) => ({
    code,
    entity: { code, key: `${code}-key`, name: `${code} name`, size: code === 'ip' ? 1 : 4096 },
    reason: null,
  })),
};
type Scores = Partial<Record<DimensionCode, number>>;
const lookupOf =
  (scores: Scores): PublishedLookup =>
  (code, key) =>
    scores[code] !== undefined && key === `${code}-key` ? summary(scores[code]) : undefined;

const report = (outcomeCode: string, severity: string, daysAgo = 0): EvidenceItem => ({
  type: 'report',
  outcomeCode,
  severity,
  at: new Date(NOW - daysAgo * DAY),
  reporter: 'me',
});
const rating = (value: -1 | 0 | 1, daysAgo = 0): EvidenceItem => ({
  type: 'rating',
  rating: value,
  at: new Date(NOW - daysAgo * DAY),
  reporter: 'me',
});

/** The caller's score with `items` as its own evidence on the IP, over `published` global scores. */
function score(published: Scores, items: readonly EvidenceItem[] | null) {
  const own = items === null ? undefined : ownVerdict(ownEvidenceOf(items), COUNTS, NOW);
  return scoreIp(hierarchy, lookupOf(published), undefined, { own, now: NOW });
}

describe('the own verdict: examples', () => {
  it('counts the caller own confirmed fraud at once, uncapped: at least high', () => {
    const r = score({}, [report('fraud_confirmed', 'critical'), rating(-1)]);
    expect(r.overallRiskLevel).toBe('high');
    expect(r.overallScore).toBeGreaterThanOrEqual(OWN_FLOOR_SCORE);
    expect(r.layers).toMatchObject({ publishedScore: 0, ownChange: r.overallScore, ownVerdict: 'bad' });
    expect(score({}, [report('fraud_confirmed', 'high')]).overallScore).toBe(OWN_FLOOR_SCORE);
    // past the 30-day hold only the decayed mass counts: 1.5 / 2 → 100·(1 − e^(−0.375)) ≈ 31
    expect(score({}, [report('fraud_confirmed', 'high', 31)]).overallScore).toBe(31);
  });

  it('lets newer benign verdicts clear the caller own view of an IP published as high', () => {
    const bad = [report('fraud_confirmed', 'critical', 2)];
    const cleared = [...bad, rating(1), rating(1), rating(1), rating(1), rating(1)];
    cleared.push(report('false_positive', 'info'), report('legitimate', 'info'));
    expect(score({ ip: 62 }, bad).overallRiskLevel).toBe('high');
    const r = score({ ip: 62 }, cleared);
    // G = 5·0.5 + 0.8 + 0.6 = 3.9 → 62 · e^(−1.95) ≈ 9
    expect(r.overallScore).toBe(9);
    expect(r.layers).toMatchObject({ publishedScore: 62, ownChange: -53, ownVerdict: 'benign' });
    expect(r.layers.explanation).toContain('benign verdict');
    // one false_positive after the confirmed report: 62 · e^(−0.4) ≈ 42
    expect(score({ ip: 62 }, [...bad, report('false_positive', 'low')]).overallScore).toBe(42);
    // ...and a newer bad verdict takes the IP back
    expect(
      score({ ip: 62 }, [...cleared.map((i) => ({ ...i, at: new Date(NOW - DAY) })), rating(-1)]).layers.ownVerdict,
    ).toBe('bad');
  });

  it('matches a dimension only when its evidence counts', () => {
    const r = score({ subnet: 0, asn: 3 }, null);
    expect(r.dimensions.find((d) => d.code === 'subnet')).toMatchObject({ matched: false, reason: SLIVER_REASON });
    expect(r.dimensions.find((d) => d.code === 'subnet')?.entity).toEqual({ key: 'subnet-key', name: 'subnet name' });
    expect(r.matchedCount).toBe(1);
    expect(score({}, [rating(1)]).dimensions[0]).toMatchObject({ matched: true, source: 'workspace', score: 0 });
  });

  it('states confidence from sources, recency and the own verdict', () => {
    expect(score({}, null).confidence).toBe(0);
    expect(scoreIp(hierarchy, () => summary(50, 1), undefined, { now: NOW }).confidence).toBe(39);
    expect(scoreIp(hierarchy, () => summary(50, 4), undefined, { now: NOW }).confidence).toBe(86);
    expect(score({}, [rating(-1)]).confidence).toBe(63);
  });
});

describe('confidence: distinct sources, their recency, the own verdict', () => {
  const other = (reporter: string, daysAgo = 0): EvidenceItem => ({
    type: 'report',
    outcomeCode: 'spam',
    severity: 'high',
    at: new Date(NOW - daysAgo * DAY),
    reporter,
    shared: true,
  });
  const feed = (name: string, block: string): EvidenceItem => ({
    type: 'feed',
    feed: name,
    weight: 1,
    at: new Date(NOW),
    block,
  });
  /** The caller's score when the IP's published (global) summary is made of `items` and nothing else is known. */
  const onIp = (items: EvidenceItem[], own: EvidenceItem[] | null = null) => {
    const pub = summarizeEvidence(items, new Date(NOW), 'ip');
    const verdict = own === null ? null : ownVerdict(ownEvidenceOf(own), COUNTS, NOW);
    const ownReported =
      own === null ? undefined : { outcomes: [], any: true, lastAt: Math.max(...own.map((i) => i.at.getTime())) };
    return scoreIp(hierarchy, (code) => (code === 'ip' ? pub : undefined), undefined, {
      own: verdict,
      ownReported,
      now: NOW,
    });
  };

  it('counts each workspace and each feed once, however many items or listings', () => {
    // two workspaces (one with three reports) and one feed listing the IP twice: 3 sources → 100·(1 − e^(−1.5)) = 78
    const r = onIp([
      other('a'),
      other('a'),
      other('a'),
      other('b'),
      feed('drop', '9.9.9.9/32'),
      feed('drop', '9.9.9.0/24'),
    ]);
    expect(r.dimensions[0]!.reported.sources).toBe(3);
    expect(r.confidence).toBe(78);
    expect(onIp([other('a'), other('a'), other('a')]).confidence).toBe(39);
  });

  it('halves a source every 30 days of its newest evidence', () => {
    // (the IP's own evidence halves in days in the score: the score is held at 50 here to see recency alone)
    const aged = (days: number) => {
      const pub = { ...summarizeEvidence([other('a', days)], new Date(NOW), 'ip'), score: 50 };
      return scoreIp(hierarchy, (code) => (code === 'ip' ? pub : undefined), undefined, { now: NOW }).confidence;
    };
    // one source 30 days old: support 0.5 → 100·(1 − e^(−0.25)) = 22; 60 days: 0.25 → 12
    expect(aged(30)).toBe(22);
    expect(aged(60)).toBe(12);
  });

  it('counts the caller once, as its own verdict, beside the other sources', () => {
    // own verdict 2 + one other workspace 1 = 3 → 78; the caller's own workspace is not a third source
    const r = onIp([other('a')], [rating(-1)]);
    expect(r.dimensions[0]!.reported.sources).toBe(2);
    expect(r.confidence).toBe(78);
    // a benign own verdict backs a low score just as much
    expect(onIp([other('a')], [rating(1)]).confidence).toBe(78);
  });

  it('shares the support out by each dimension part of the score', () => {
    // ip (w 1, s 50) with 2 sources, subnet (w 0.6, s 50) with 1: shares 1/1.6 and 0.6/1.6 → 1.625 → 56
    const two = summarizeEvidence([other('a'), other('b')], new Date(NOW), 'ip');
    const one = summarizeEvidence([other('c')], new Date(NOW), 'subnet');
    const lookup: PublishedLookup = (code) =>
      code === 'ip' ? { ...two, score: 50 } : code === 'subnet' ? { ...one, score: 50 } : undefined;
    expect(scoreIp(hierarchy, lookup, undefined, { now: NOW }).confidence).toBe(56);
  });

  it('never falls when a dimension gains a distinct source, and does not follow the risk', () => {
    const sourcesArb = fc.record(
      Object.fromEntries(DIMENSION_CODES.map((c) => [c, fc.integer({ min: 0, max: 6 })])),
    ) as fc.Arbitrary<Record<DimensionCode, number>>;
    const withSources = (scores: Scores, sources: Record<DimensionCode, number>): PublishedLookup => {
      return (code) => {
        const s = scores[code];
        if (s === undefined) return undefined;
        const reported = { outcomes: [], sharedOutcomes: [], sources: sources[code], listings: [] };
        return { ...summary(s), reported };
      };
    };
    fc.assert(
      fc.property(scoresArb, sourcesArb, fc.constantFrom(...DIMENSION_CODES), (scores, sources, code) => {
        const c = scoreIp(hierarchy, withSources(scores, sources), undefined, { now: NOW }).confidence;
        expect(Number.isInteger(c) && c >= 0 && c <= 100).toBe(true);
        const more = { ...sources, [code]: sources[code] + 1 };
        expect(
          scoreIp(hierarchy, withSources(scores, more), undefined, { now: NOW }).confidence,
        ).toBeGreaterThanOrEqual(c);
        // every dimension with the same sources: confidence is that source count's, whatever the scores (if any)
        const same = Object.fromEntries(DIMENSION_CODES.map((d) => [d, 2])) as Record<DimensionCode, number>;
        const r = scoreIp(hierarchy, withSources(scores, same), undefined, { now: NOW });
        expect(r.confidence).toBe(r.overallScore === 0 && r.dimensions.every((d) => d.score === 0) ? 0 : 63);
      }),
      { numRuns: 300 },
    );
  });
});

// ---------- properties ----------
const itemArb: fc.Arbitrary<EvidenceItem> = fc.oneof(
  fc
    .tuple(fc.constantFrom(...OUTCOME_CODES), fc.constantFrom(...SEVERITIES), fc.integer({ min: 0, max: 120 }))
    .map(([o, s, d]) => report(o, s, d)),
  fc
    .tuple(fc.constantFrom(-1 as const, 0 as const, 1 as const), fc.integer({ min: 0, max: 120 }))
    .map(([v, d]) => rating(v, d)),
);
const scoreArb = fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined });
const scoresArb = fc.record(Object.fromEntries(DIMENSION_CODES.map((c) => [c, scoreArb]))) as fc.Arbitrary<Scores>;
const itemsArb = fc.array(itemArb, { maxLength: 12 });
const benign = (i: EvidenceItem) =>
  i.type === 'rating'
    ? i.rating === 1
    : i.type === 'report' && ['legitimate', 'false_positive'].includes(i.outcomeCode);
const bad = (i: EvidenceItem) => (i.type === 'rating' ? i.rating === -1 : !benign(i));
const badArb = itemArb.filter(bad);
const benignArb = itemArb.filter(benign);

describe('the own verdict: properties', () => {
  it('is bounded, explained, adds up and is stable', () => {
    fc.assert(
      fc.property(scoresArb, fc.option(itemsArb, { nil: null }), (published, items) => {
        const r = score(published, items);
        for (const n of [r.overallScore, r.confidence, r.layers.publishedScore, ...r.dimensions.map((d) => d.score)]) {
          expect(Number.isInteger(n) && n >= 0 && n <= 100, String(n)).toBe(true);
        }
        expect(r.layers.publishedScore + r.layers.ownChange).toBe(r.overallScore);
        expect(r.dimensions.reduce((a, d) => a + d.contribution, 0)).toBe(r.overallScore);
        expect(r.matchedCount).toBe(r.dimensions.filter((d) => d.matched).length);
        expect(r.dimensions.filter((d) => !d.matched).every((d) => d.score === 0 && d.contribution === 0)).toBe(true);
        if (items === null || items.length === 0) expect(r.layers.ownChange).toBe(0);
        expect(score(published, items)).toEqual(r);
        expect(score(published, items && [...items].reverse())).toEqual(r);
      }),
      { numRuns: 400 },
    );
  });

  it('never lowers the score for more bad evidence, own or published', () => {
    fc.assert(
      fc.property(scoresArb, itemsArb, badArb, fc.constantFrom(...DIMENSION_CODES), (published, items, bad, code) => {
        const before = score(published, items).overallScore;
        expect(score(published, [...items, bad]).overallScore).toBeGreaterThanOrEqual(before);
        const raised = { ...published, [code]: Math.min(100, (published[code] ?? 0) + 20) };
        expect(score(raised, items).overallScore).toBeGreaterThanOrEqual(before);
      }),
      { numRuns: 400 },
    );
  });

  it('never raises the score for a benign verdict', () => {
    fc.assert(
      fc.property(scoresArb, itemsArb, benignArb, (published, items, benign) => {
        expect(score(published, [...items, benign]).overallScore).toBeLessThanOrEqual(
          score(published, items).overallScore,
        );
        expect(score(published, [benign]).overallScore).toBeLessThanOrEqual(score(published, []).overallScore);
      }),
      { numRuns: 400 },
    );
  });

  it('holds its sums so writes only add: the fold of a list is the sum of the folds of its parts', () => {
    const add = (a: OwnEvidence, b: OwnEvidence): OwnEvidence => {
      const later = (x: number | null, y: number | null) => (x === null ? y : y === null ? x : Math.max(x, y));
      return {
        bad: a.bad + b.bad,
        good: a.good + b.good,
        badAt: later(a.badAt, b.badAt),
        goodAt: later(a.goodAt, b.goodAt),
        floorAt: later(a.floorAt, b.floorAt),
      };
    };
    fc.assert(
      fc.property(itemsArb, itemsArb, (a, b) => {
        const whole = ownEvidenceOf([...a, ...b]);
        const parts = add(add(NO_OWN_EVIDENCE, ownEvidenceOf(a)), ownEvidenceOf(b));
        expect(parts.badAt).toBe(whole.badAt);
        expect(parts.goodAt).toBe(whole.goodAt);
        expect(parts.floorAt).toBe(whole.floorAt);
        expect(parts.bad).toBeCloseTo(whole.bad, 9);
        expect(parts.good).toBeCloseTo(whole.good, 9);
      }),
      { numRuns: 300 },
    );
  });
});
