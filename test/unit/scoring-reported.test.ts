/**
 * What was reported (scoring/reported.ts) against the reports written: for random reports and ratings of three
 * workspaces, community-visible or not, and feed listings, the published layers (summarized as the publisher
 * summarizes them) plus the caller's live memory (folded as the write statements fold it) give exactly the counts
 * and sources of the evidence the caller may see: every community report, its own reports and ratings, the feeds.
 * Writes after the publication count at once for their author and not yet for anyone else.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { summarizeEvidence, MAX_LISTINGS, type EvidenceItem } from '../../src/domain/scoring/evidence.ts';
import { listedBlockReason, reportedFor, withHoldingBlocks } from '../../src/domain/scoring/reported.ts';
import type { OwnReported } from '../../src/domain/scoring/own-verdict.ts';
import { OUTCOME_CODES } from '../../src/domain/scoring/weights.ts';

const NOW = new Date('2026-06-01T00:00:00Z');
const WORKSPACES = [1, 2, 3];

type Write =
  | { kind: 'report'; ws: number; outcome: string; community: boolean; at: number; late: boolean }
  | { kind: 'rating'; ws: number; rating: -1 | 0 | 1; at: number; late: boolean }
  | { kind: 'feed'; feed: string; at: number; late: boolean };

const at = fc.integer({ min: 0, max: 90 * 86_400_000 }).map((d) => NOW.getTime() - d);
const writeArb: fc.Arbitrary<Write> = fc.oneof(
  fc.record({
    kind: fc.constant('report' as const),
    ws: fc.constantFrom(...WORKSPACES),
    outcome: fc.constantFrom(...OUTCOME_CODES),
    community: fc.boolean(),
    at,
    late: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('rating' as const),
    ws: fc.constantFrom(...WORKSPACES),
    rating: fc.constantFrom(-1 as const, 0 as const, 1 as const),
    at,
    late: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('feed' as const),
    feed: fc.constantFrom('drop', 'edrop'),
    at,
    late: fc.constant(false),
  }),
);

function itemOf(w: Write): EvidenceItem {
  const when = new Date(w.at);
  if (w.kind === 'report')
    return {
      type: 'report',
      outcomeCode: w.outcome,
      severity: 'medium',
      at: when,
      reporter: `ws:${w.ws}`,
      shared: w.community,
    };
  if (w.kind === 'rating') return { type: 'rating', rating: w.rating, at: when, reporter: `ws:${w.ws}` };
  return { type: 'feed', feed: w.feed, weight: 1, at: when, block: '10.0.0.1/32' };
}

/** The layers as gather.ts builds them from the writes published (`late` ones are written after the publication). */
function published(writes: readonly Write[], ws: number) {
  const done = writes.filter((w) => !w.late);
  const global = done.filter((w) => w.kind === 'feed' || (w.kind === 'report' && w.community)).map(itemOf);
  const own = done.filter((w) => w.kind !== 'feed' && w.ws === ws).map(itemOf);
  return {
    global: global.length ? summarizeEvidence(global, NOW, 'ip') : undefined,
    own: own.length ? summarizeEvidence(own, NOW, 'ip') : undefined,
  };
}

/** The caller's live memory of the IP, as the write statements keep it: every own write, published or not. */
function live(writes: readonly Write[], ws: number): OwnReported {
  const own = writes.filter((w) => w.kind !== 'feed' && w.ws === ws);
  const outcomes = OUTCOME_CODES.map(
    (c) => own.filter((w) => w.kind === 'report' && w.outcome === c).length,
  ) as number[];
  return {
    outcomes,
    any: own.length > 0,
    lastAt: own.length ? Math.max(...own.map((w) => w.at)) : null,
  };
}

/** What the caller may see, counted from the writes themselves. */
function visible(writes: readonly Write[], ws: number) {
  const seen = writes.filter(
    (w) =>
      (w.kind !== 'feed' && w.ws === ws) || (!w.late && (w.kind === 'feed' || (w.kind === 'report' && w.community))),
  );
  const byOutcome: Record<string, number> = {};
  for (const c of OUTCOME_CODES) {
    const n = seen.filter((w) => w.kind === 'report' && w.outcome === c).length;
    if (n > 0) byOutcome[c] = n;
  }
  const sources = new Set(seen.map((w) => (w.kind === 'feed' ? `feed:${w.feed}` : `ws:${w.ws}`)));
  return {
    countsByOutcome: byOutcome,
    sources: sources.size,
    lastReportedAt: seen.length ? new Date(Math.max(...seen.map((w) => w.at))) : null,
  };
}

describe('what was reported, against the reports written', () => {
  it('the published layers plus the live memory count exactly what the caller may see (IP, live memory)', () => {
    fc.assert(
      fc.property(fc.array(writeArb, { maxLength: 30 }), fc.constantFrom(...WORKSPACES), (writes, ws) => {
        const { global, own } = published(writes, ws);
        const r = reportedFor(global, own, live(writes, ws));
        expect({ countsByOutcome: r.countsByOutcome, sources: r.sources, lastReportedAt: r.lastReportedAt }).toEqual(
          visible(writes, ws),
        );
      }),
    );
  });

  it('the published layers alone count exactly what the caller may see, as of the publication (no live memory)', () => {
    fc.assert(
      fc.property(fc.array(writeArb, { maxLength: 30 }), fc.constantFrom(...WORKSPACES), (writes, ws) => {
        const before = writes.map((w) => ({ ...w, late: false }));
        const { global, own } = published(before, ws);
        const r = reportedFor(global, own, undefined);
        expect({ countsByOutcome: r.countsByOutcome, sources: r.sources, lastReportedAt: r.lastReportedAt }).toEqual(
          visible(before, ws),
        );
      }),
    );
  });

  it("never counts another workspace's private report or rating, and its outcomes add up to the reports seen", () => {
    fc.assert(
      fc.property(fc.array(writeArb, { maxLength: 30 }), (writes) => {
        const outsider = 99; // wrote nothing
        const { global } = published(writes, outsider);
        const r = reportedFor(global, undefined, live(writes, outsider));
        const community = writes.filter((w) => !w.late && w.kind === 'report' && w.community).length;
        expect(Object.values(r.countsByOutcome).reduce((n, c) => n + c, 0)).toBe(community);
      }),
    );
  });

  it('answers nothing reported for an entity without evidence', () => {
    expect(reportedFor(undefined, undefined, { outcomes: [], any: false, lastAt: null })).toEqual({
      countsByOutcome: {},
      sources: 0,
      lastReportedAt: null,
      feeds: [],
    });
  });

  it('reads a publication written before `reported` was kept: workspaces plus listings as sources, no outcomes', () => {
    const old = { ...summarizeEvidence([itemOf({ kind: 'feed', feed: 'drop', at: 0, late: false })], NOW) };
    old.reported = null;
    expect(reportedFor(old, undefined, undefined)).toMatchObject({ countsByOutcome: {}, sources: 1, feeds: [] });
  });
});

describe('feeds listing a block that holds the IP', () => {
  const listed = (blocks: string[]) =>
    summarizeEvidence(
      blocks.map((block, i): EvidenceItem => ({ type: 'feed', feed: `f${i % 3}`, weight: 1, at: NOW, block })),
      NOW,
      'subnet',
    );

  it('names the listings of the subnet that hold the IP, and only those, in the reason', () => {
    const subnet = listed(['9.9.9.0/28', '9.9.9.128/25']);
    const nothing = reportedFor(undefined, undefined, undefined);
    const inside = withHoldingBlocks(nothing, subnet, '9.9.9.0/24', '9.9.9.5');
    expect(inside.feeds).toEqual([{ feed: 'f0', block: '9.9.9.0/28' }]);
    expect(listedBlockReason(inside.feeds)).toBe(
      'no evidence names the IP itself; it lies in 9.9.9.0/28, listed by the feed f0',
    );
    expect(withHoldingBlocks(nothing, subnet, '9.9.9.0/24', '9.9.9.100')).toBe(nothing);
    expect(withHoldingBlocks(nothing, subnet, '9.9.9.0/24', '9.9.9.200').feeds).toEqual([
      { feed: 'f1', block: '9.9.9.128/25' },
    ]);
    expect(withHoldingBlocks(nothing, listed(['2001:db8::/32']), '2001:db8::/48', '2001:db8::1').feeds).toHaveLength(1);
    expect(withHoldingBlocks(nothing, listed(['2001:db8::/32']), '9.9.9.0/24', '9.9.9.5')).toBe(nothing);
    // A listed block larger than the subnet holds every address of it.
    expect(withHoldingBlocks(nothing, listed(['9.9.0.0/16']), '9.9.9.0/24', '9.9.9.77').feeds).toEqual([
      { feed: 'f0', block: '9.9.0.0/16' },
    ]);
  });

  it('keeps at most MAX_LISTINGS listings per entity, the first by feed then block', () => {
    const blocks = Array.from({ length: 30 }, (_, i) => `10.0.${i}.0/24`);
    const summary = listed(blocks);
    expect(summary.reported?.listings).toHaveLength(MAX_LISTINGS);
    expect(summary.reported?.listings[0]).toEqual({ feed: 'f0', block: '10.0.0.0/24' });
    expect(summary.reported?.sources).toBe(3);
  });
});
