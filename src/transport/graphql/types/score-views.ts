/**
 * The score answer under its GraphQL field names, as read-only views over the domain objects.
 *
 * Why views and not resolvers: graphql-jit compiles a field WITHOUT a resolver to a plain property read,
 * while every field with one costs a call plus a resolve-info object built for it. The score selection has
 * ~200 fields, ~110 of which only renamed a snake_case domain property: that was a tenth of a REST score
 * call's CPU. Every score field is now exposed (no resolver), and these getters do the renaming.
 * A view is built only where a selection reaches it, and holds no copy of the data.
 */
import type { ScoreOutcome } from '../../../domain/lookups/score-call.ts';
import type { QuotaPosture } from '../../../domain/metering/meter.ts';
import type { DimensionScore, IpScore } from '../../../domain/scoring/score.ts';
import type { EvidenceCounts } from '../../../domain/scoring/evidence.ts';
import type { CommunitySignal } from '../../../domain/community/signal.ts';
import type { DimensionCode } from '../../../domain/network/types.ts';
import type { IpMemory } from '../../../domain/memory/ip-memory.ts';

export class QuotaView {
  constructor(private readonly q: QuotaPosture) {}
  get dailyLimit() { return this.q.daily_limit; }
  get usedToday() { return this.q.used_today; }
  get remaining() { return this.q.remaining; }
  get overLimit() { return this.q.over_limit; }
  get resetsAt() { return this.q.resets_at; }
}

export class EvidenceView {
  constructor(private readonly c: EvidenceCounts) {}
  get reports() { return this.c.reports; }
  get badRatings() { return this.c.bad_ratings; }
  get neutralRatings() { return this.c.neutral_ratings; }
  get goodRatings() { return this.c.good_ratings; }
  get feedListings() { return this.c.feed_listings; }
}

export class DimensionView {
  constructor(private readonly d: DimensionScore) {}
  get code() { return this.d.code; }
  get matched() { return this.d.matched; }
  get score() { return this.d.score; }
  get entity() { return this.d.entity; }
  get level() { return this.d.level; }
  get weight() { return this.d.weight; }
  get contribution() { return this.d.contribution; }
  get source() { return this.d.source; }
  get evidence() { return this.d.evidence && new EvidenceView(this.d.evidence); }
  get reason() { return this.d.reason; }
}

export class ScoreSummaryView {
  constructor(private readonly s: IpScore) {}
  get overallScore() { return this.s.overall_score; }
  get overallRiskLevel() { return this.s.overall_risk_level; }
  get matchedCount() { return this.s.matched_count; }
  get driver() { return this.s.driver; }
  get dimensions() { return this.s.dimensions.map((d) => new DimensionView(d)); }
}

export class CommunityView {
  constructor(private readonly c: CommunitySignal) {}
  get ok() { return this.c.ok; }
  get label() { return this.c.state.label; }
  get hasSpike() { return this.c.state.has_spike; }
  get lookups10m() { return this.c.metrics.lookups_10m; }
  get requesters60m() { return this.c.metrics.requesters_60m; }
  get spikeWindows7d() { return this.c.metrics.spike_windows_7d; }
  get recentQueryWindows() { return this.c.recent_query_windows; }
}

export class LastRatingView {
  constructor(private readonly r: NonNullable<IpMemory['last_rating']>) {}
  get rating() { return this.r.rating; }
  get note() { return this.r.note; }
  get createdAt() { return this.r.created_at; }
}

export class MemoryView {
  constructor(private readonly m: IpMemory) {}
  get goodRatings() { return this.m.ratings.good; }
  get neutralRatings() { return this.m.ratings.neutral; }
  get badRatings() { return this.m.ratings.bad; }
  get lastRating() { return this.m.last_rating && new LastRatingView(this.m.last_rating); }
  get reports() { return this.m.reports; }
}

export class ScoreResultView {
  constructor(private readonly o: ScoreOutcome) {}
  get ip() { return this.o.ip; }
  get apiKey() { return this.o.apiKey; }
  get quota() { return new QuotaView(this.o.quota); }
  get score() { return new ScoreSummaryView(this.o.score); }
  get communitySignal() { return new CommunityView(this.o.community); }
  get memory() { return new MemoryView(this.o.memory); }
  get reportLink() { return this.o.links.ip; }
  get dimensionLinks() {
    const links: Array<{ code: DimensionCode; url: string }> = [];
    for (const [code, url] of Object.entries(this.o.links.dimensions)) links.push({ code: code as DimensionCode, url });
    return links;
  }
  get publication() { return this.o.publication; }
}
