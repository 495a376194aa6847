/**
 * What was reported about a dimension's entity, as the caller may see it (docs/risk-model.md#what-was-reported):
 * the published summaries (evidence.ts, ReportedSummary) of the global layer and of the caller's own layer, plus, for
 * the IP itself, the caller's live memory. Nothing here changes a score.
 *
 * RULE (the one place it is written). The reports the caller sees are every community-visible report (the global
 * layer) and its own reports of any visibility. Its own community reports are in both, so they are counted once:
 *   outcomes[c]      = max(0, global[c] − ownShared[c]) + own[c]
 *   sources          = max(0, global sources − (ownShared any ? 1 : 0)) + (own any ? 1 : 0)
 *   last_reported_at = the newer of the global layer's newest evidence and the caller's own
 *   feeds            = the global layer's direct listings of the entity; for the IP, also the listings of its subnet
 *                      whose block holds the IP (`withHoldingBlocks`)
 * where `own` is the caller's own layer as published, or for the IP its live memory (memory/ip-memory-table.ts), and
 * `ownShared` the community part of its own layer as published (what the global layer holds of it). A report written
 * after the publication is in the live memory and not yet in either published layer, so it is counted once too.
 * Another workspace is never named: it only adds to `sources`, and only through its community reports.
 */
import {
  countsByOutcomeOf,
  MAX_LISTINGS,
  type CountsByOutcome,
  type EntitySummary,
  type FeedListing,
} from './evidence.ts';
import type { OwnReported } from './own-verdict.ts';
import { OUTCOME_CODES } from './weights.ts';
import { blockHolds } from '../network/cidr.ts';

export type DimensionReported = {
  /** Reports by outcome code, vocabulary order, only codes with a count. */
  countsByOutcome: CountsByOutcome;
  /** Distinct reporting sources: workspaces and feeds. */
  sources: number;
  lastReportedAt: Date | null;
  feeds: readonly FeedListing[];
};

export const NOTHING_REPORTED: DimensionReported = Object.freeze({
  countsByOutcome: Object.freeze({}),
  sources: 0,
  lastReportedAt: null,
  feeds: Object.freeze([]),
});

const EMPTY: readonly number[] = Object.freeze([]);
const anyOf = (counts: readonly number[]) => counts.some((n) => n > 0);

/**
 * One entity's `reported` for the caller. `live`: the caller's live memory of the IP (the `ip` dimension only), which
 * stands for its published own layer there.
 */
export function reportedFor(
  pub: EntitySummary | undefined,
  own: EntitySummary | undefined,
  live: OwnReported | undefined,
): DimensionReported {
  const ownAny = live ? live.any : own !== undefined;
  if (!ownAny) {
    // Published evidence alone (most dimensions of most answers): its summary's own lists, nothing made per call.
    if (!pub) return NOTHING_REPORTED;
    const r = pub.reported;
    return {
      countsByOutcome: r ? (r.byOutcome ?? countsByOutcomeOf(r.outcomes)) : NOTHING_REPORTED.countsByOutcome,
      sources: r ? r.sources : pub.reporters + pub.counts.feedListings,
      lastReportedAt: pub.lastSeen,
      feeds: r?.listings ?? NOTHING_REPORTED.feeds,
    };
  }
  const pubOutcomes = pub?.reported?.outcomes ?? EMPTY;
  // A publication from before `reported` was kept knows workspaces and listings, not distinct feeds.
  const pubSources = pub ? (pub.reported ? pub.reported.sources : pub.reporters + pub.counts.feedListings) : 0;
  const ownShared = own?.reported?.sharedOutcomes ?? EMPTY;
  const ownOutcomes = live ? live.outcomes : (own?.reported?.outcomes ?? EMPTY);
  const counts: number[] = [];
  for (let i = 0; i < OUTCOME_CODES.length; i++)
    counts.push(Math.max(0, (pubOutcomes[i] ?? 0) - (ownShared[i] ?? 0)) + (ownOutcomes[i] ?? 0));
  const sources = Math.max(0, pubSources - (anyOf(ownShared) ? 1 : 0)) + 1;
  const ownLast = live ? live.lastAt : (own?.lastSeen?.getTime() ?? null);
  const pubLast = pub?.lastSeen ?? null;
  const lastReportedAt =
    ownLast === null ? pubLast : pubLast !== null && pubLast.getTime() >= ownLast ? pubLast : new Date(ownLast);
  return {
    countsByOutcome: countsByOutcomeOf(counts),
    sources,
    lastReportedAt,
    feeds: pub?.reported?.listings ?? NOTHING_REPORTED.feeds,
  };
}

/** The IP's `reported` with the listings of its subnet whose block holds the IP (a feed listing a block names it). */
export function withHoldingBlocks(
  ipReported: DimensionReported,
  subnet: EntitySummary | undefined,
  subnetKey: string,
  ip: string,
): DimensionReported {
  const listed = subnet?.reported?.listings;
  if (!listed || listed.length === 0) return ipReported;
  // A listing placed on the subnet overlaps it, so it holds the whole subnet (and the IP) unless it is the smaller.
  const subnetPrefix = prefixLength(subnetKey);
  const v6 = ip.includes(':');
  const holding = listed.filter(
    (l) => (l.block.includes(':') === v6 && prefixLength(l.block) <= subnetPrefix) || blockHolds(l.block, ip),
  );
  if (holding.length === 0) return ipReported;
  return { ...ipReported, feeds: [...ipReported.feeds, ...holding].slice(0, MAX_LISTINGS) };
}

/** The prefix length of "net/len" (NaN when there is none: then the block is checked in full). */
function prefixLength(block: string): number {
  const slash = block.indexOf('/');
  return slash < 0 ? Number.NaN : Number(block.slice(slash + 1));
}

/** The reason of an IP without evidence of its own that lies in a listed block: names the feed and the block. */
export function listedBlockReason(feeds: readonly FeedListing[]): string | null {
  const block = feeds.find((f) => !f.block.endsWith('/32') && !f.block.endsWith('/128'));
  if (!block) return null;
  const more = feeds.length > 1 ? ` (and ${feeds.length - 1} more listing${feeds.length > 2 ? 's' : ''})` : '';
  return `no evidence names the IP itself; it lies in ${block.block}, listed by the feed ${block.feed}${more}`;
}
