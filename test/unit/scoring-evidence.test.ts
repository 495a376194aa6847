/**
 * Evidence → summary: the documented reference points, decay, per-workspace saturation, good
 * evidence, and the properties (bounded, order-independent, monotone) checked with fast-check.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { summarizeEvidence, type EvidenceItem } from '../../src/domain/scoring/evidence.ts';
import { RISK_LEVELS, riskLevel } from '../../src/domain/scoring/levels.ts';
import { OUTCOME_CODES, SEVERITIES } from '../../src/domain/scoring/weights.ts';

const NOW = new Date('2026-03-01T00:00:00Z');
const DAY = 24 * 60 * 60 * 1000;
const ago = (days: number) => new Date(NOW.getTime() - days * DAY);

const report = (reporter: string, outcomeCode = 'fraud_confirmed', severity = 'high', at = NOW): EvidenceItem => ({
  type: 'report',
  outcomeCode,
  severity,
  at,
  reporter,
});
const rating = (reporter: string, value: -1 | 0 | 1, at = NOW): EvidenceItem => ({
  type: 'rating',
  rating: value,
  at,
  reporter,
});
const feed = (name: string, weight = 1, at = NOW): EvidenceItem => ({ type: 'feed', feed: name, weight, at });
const score = (items: EvidenceItem[]) => summarizeEvidence(items, NOW).score;

describe('risk levels', () => {
  it('maps every band bound to its level, and the bands tile 0..100', () => {
    for (const band of RISK_LEVELS) {
      expect([riskLevel(band.min), riskLevel(band.max)]).toEqual([band.level, band.level]);
    }
    expect(RISK_LEVELS.map((b) => [b.min, b.max])).toEqual([
      [0, 9],
      [10, 29],
      [30, 59],
      [60, 84],
      [85, 100],
    ]);
    expect([riskLevel(-5), riskLevel(250), riskLevel(Number.NaN)]).toEqual(['minimal', 'critical', 'minimal']);
  });
});

describe('summarizeEvidence: reference points', () => {
  it('scores the documented examples', () => {
    expect({
      none: score([]),
      oneHighFraud: score([report('a')]),
      twoWorkspaces: score([report('a'), report('b')]),
      fourWorkspaces: score([report('a'), report('b'), report('c'), report('d')]),
      oneBadRating: score([rating('a', -1)]),
      oneFeed: score([feed('drop')]),
    }).toEqual({ none: 0, oneHighFraud: 41, twoWorkspaces: 65, fourWorkspaces: 88, oneBadRating: 20, oneFeed: 41 });
  });

  it('orders outcomes and severities by weight', () => {
    const byOutcome = OUTCOME_CODES.slice(0, 9).map((o) => score([report('a', o, 'critical')]));
    expect(byOutcome).toEqual([...byOutcome].sort((x, y) => y - x));
    expect(byOutcome[0]).toBeGreaterThan(byOutcome[8]!);
    const bySeverity = SEVERITIES.map((s) => score([report('a', 'fraud_confirmed', s)]));
    expect(bySeverity).toEqual([...bySeverity].sort((x, y) => x - y));
    expect(bySeverity[4]).toBeGreaterThan(bySeverity[0]!);
  });

  it('halves a report every 3 days on the IP and every 30 days on a network, but never decays a feed listing', () => {
    // critical (×2) three days old weighs exactly what medium (×1) weighs today, on the IP itself.
    expect(score([report('a', 'fraud_confirmed', 'critical', ago(3))])).toBe(
      score([report('a', 'fraud_confirmed', 'medium')]),
    );
    expect(score([report('a', 'spam', 'high', ago(60))])).toBe(0);
    // On a network (a subnet here), the same holds at thirty days: a neighbourhood's reputation changes slowly.
    const onSubnet = (items: EvidenceItem[]) => summarizeEvidence(items, NOW, 'subnet').score;
    expect(onSubnet([report('a', 'fraud_confirmed', 'critical', ago(30)), report('b', 'spam', 'low')])).toBe(
      onSubnet([report('a', 'fraud_confirmed', 'medium'), report('b', 'spam', 'low')]),
    );
    expect(onSubnet([report('a', 'fraud_confirmed', 'critical', ago(3))])).toBeGreaterThan(
      onSubnet([report('a', 'fraud_confirmed', 'medium')]),
    );
    expect(score([feed('drop', 1, ago(400))])).toBe(score([feed('drop', 1)]));
    // Evidence dated in the future gets no boost.
    expect(score([report('a', 'fraud_confirmed', 'high', new Date(NOW.getTime() + 90 * DAY))])).toBe(41);
  });

  it('caps what one workspace can do alone, however many reports it files', () => {
    const spam = Array.from({ length: 500 }, () => report('noisy', 'fraud_confirmed', 'critical'));
    expect(score(spam)).toBe(63);
    const three = ['a', 'b', 'c'].flatMap((r) =>
      Array.from({ length: 5 }, () => report(r, 'fraud_confirmed', 'critical')),
    );
    expect(score(three)).toBeGreaterThanOrEqual(85);
  });

  it('lets good evidence pull a score down but never below 0', () => {
    const bad = [report('a'), report('b')];
    expect(score([...bad, rating('c', 1)])).toBeLessThan(score(bad));
    expect(score([...bad, report('c', 'false_positive', 'info')])).toBeLessThan(score([...bad, rating('c', 1)]));
    expect(score([rating('a', 1), report('b', 'legitimate', 'low')])).toBe(0);
  });

  const zeros = OUTCOME_CODES.map(() => 0);
  it('counts items, distinct workspaces and the seen window; unknown outcomes count but weigh nothing', () => {
    const s = summarizeEvidence(
      [
        report('a', 'no_such_outcome', 'high', ago(10)),
        rating('a', -1, ago(3)),
        rating('b', 0, ago(2)),
        rating('b', 1, ago(1)),
        feed('drop', 0.5, ago(20)),
      ],
      NOW,
    );
    expect(s).toEqual({
      score: s.score,
      level: riskLevel(s.score),
      counts: { reports: 1, badRatings: 1, neutralRatings: 1, goodRatings: 1, feedListings: 1 },
      reporters: 2,
      firstSeen: ago(20),
      lastSeen: ago(1),
      // The unknown outcome is a report but under no outcome code; a and b and the feed are three sources.
      reported: { outcomes: zeros, sharedOutcomes: zeros, sources: 3, listings: [] },
    });
    expect(score([report('a', 'no_such_outcome', 'critical')])).toBe(0);
    expect(summarizeEvidence([], NOW)).toMatchObject({ firstSeen: null, lastSeen: null, level: 'minimal' });
  });
});

// ---------- properties ----------
const reporterArb = fc.constantFrom('a', 'b', 'c', 'd');
const atArb = fc.integer({ min: -400, max: 30 }).map((d) => new Date(NOW.getTime() - d * DAY));
const inheritedArb = fc.option(
  fc.record({ scale: fc.double({ min: 0, max: 1, noNaN: true }), origin: fc.constantFrom('1.1.1.1', '2.2.2.2') }),
  { nil: undefined },
);
const withInherited = (item: EvidenceItem, extra: { scale: number; origin: string } | undefined): EvidenceItem =>
  extra ? { ...item, ...extra } : item;

const badItemArb: fc.Arbitrary<EvidenceItem> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(...OUTCOME_CODES.slice(0, 9)),
      fc.constantFrom(...SEVERITIES, 'bogus'),
      atArb,
      reporterArb,
      inheritedArb,
    )
    .map(([o, s, at, r, x]) => withInherited(report(r, o, s, at), x)),
  fc.tuple(atArb, reporterArb, inheritedArb).map(([at, r, x]) => withInherited(rating(r, -1, at), x)),
  fc
    .tuple(fc.constantFrom('drop', 'firehol'), fc.double({ min: 0, max: 1, noNaN: true }), atArb, inheritedArb)
    .map(([f, w, at, x]) => withInherited(feed(f, w, at), x)),
);
const goodItemArb: fc.Arbitrary<EvidenceItem> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('legitimate', 'false_positive'),
      fc.constantFrom(...SEVERITIES),
      atArb,
      reporterArb,
      inheritedArb,
    )
    .map(([o, s, at, r, x]) => withInherited(report(r, o, s, at), x)),
  fc.tuple(atArb, reporterArb, inheritedArb).map(([at, r, x]) => withInherited(rating(r, 1, at), x)),
);
const anyItemArb = fc.oneof(
  badItemArb,
  goodItemArb,
  fc.tuple(atArb, reporterArb).map(([at, r]) => rating(r, 0, at)),
);
const itemsArb = fc.array(anyItemArb, { maxLength: 30 });

describe('summarizeEvidence: properties', () => {
  it('is an integer 0..100 with the matching level', () => {
    fc.assert(
      fc.property(itemsArb, (items) => {
        const s = summarizeEvidence(items, NOW);
        expect(Number.isInteger(s.score) && s.score >= 0 && s.score <= 100, `score ${s.score}`).toBe(true);
        expect(s.level).toBe(riskLevel(s.score));
      }),
    );
  });

  it('does not depend on item order', () => {
    fc.assert(
      fc.property(itemsArb, fc.integer(), (items, seed) => {
        const shuffled = items
          .map((item, i) => ({ item, k: (i * 2654435761 + seed) % 1000 }))
          .sort((a, b) => a.k - b.k)
          .map((x) => x.item);
        expect(summarizeEvidence(shuffled, NOW)).toEqual(summarizeEvidence(items, NOW));
      }),
    );
  });

  it('never lowers the score when bad evidence is added', () => {
    fc.assert(
      fc.property(itemsArb, badItemArb, (items, bad) => {
        expect(score([...items, bad])).toBeGreaterThanOrEqual(score(items));
      }),
      { numRuns: 500 },
    );
  });

  it('never raises the score when good evidence is added', () => {
    fc.assert(
      fc.property(itemsArb, goodItemArb, (items, good) => {
        expect(score([...items, good])).toBeLessThanOrEqual(score(items));
      }),
      { numRuns: 500 },
    );
  });
});
