import { builder } from '../builder.ts';
import { viewerOf } from '../context.ts';
import { ApiKeyInfo } from './workspace.ts';
import { PublicationInfo } from './network.ts';
import { scoreRequest, type ScoreOutcome } from '../../domain/score/score-request.ts';
import type { QuotaPosture } from '../../domain/metering/meter.ts';
import type { DimensionScore, IpScore } from '../../domain/scoring/score.ts';
import type { CommunitySignal } from '../../domain/community/signal.ts';
import type { IpMemory } from '../../domain/memory/ip-memory.ts';
import type { EvidenceCounts } from '../../domain/scoring/evidence.ts';

const Quota = builder.objectRef<QuotaPosture>('Quota').implement({
  description: 'The daily score quota after this call (resets 00:00 UTC).',
  fields: (t) => ({
    dailyLimit: t.int({ description: 'Successful score calls allowed per UTC day.', resolve: (q) => q.daily_limit }),
    usedToday: t.int({ description: 'Successful score calls counted today, this one included.', resolve: (q) => q.used_today }),
    remaining: t.int({ description: 'dailyLimit - usedToday, never negative.', resolve: (q) => q.remaining }),
    overLimit: t.boolean({ description: 'True when no call is left today: the next score is refused until the reset.', resolve: (q) => q.over_limit }),
    resetsAt: t.string({ description: 'When the count resets (next 00:00 UTC).', resolve: (q) => q.resets_at }),
  }),
});

const EvidenceCountsRef = builder.objectRef<EvidenceCounts>('EvidenceCounts').implement({
  description: 'Evidence behind a dimension score.',
  fields: (t) => ({
    reports: t.int({ description: 'Reports.', resolve: (c) => c.reports }),
    badRatings: t.int({ description: 'Bad ratings.', resolve: (c) => c.bad_ratings }),
    neutralRatings: t.int({ description: 'Neutral ratings.', resolve: (c) => c.neutral_ratings }),
    goodRatings: t.int({ description: 'Good ratings.', resolve: (c) => c.good_ratings }),
    feedListings: t.int({ description: 'Threat-feed listings.', resolve: (c) => c.feed_listings }),
  }),
});

const MatchedEntity = builder.objectRef<{ key: string; name: string }>('MatchedEntity').implement({
  description: 'The entity a dimension resolved to.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'Entity key.' }),
    name: t.exposeString('name', { description: 'Display name.' }),
  }),
});

const DimensionScoreRef = builder.objectRef<DimensionScore>('DimensionScore').implement({
  description: 'One dimension of the score, with its explanation.',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'ip, subnet, isp, asn, org, city, region or country.' }),
    matched: t.exposeBoolean('matched', { description: 'A summary exists for the entity.' }),
    score: t.exposeInt('score', { description: 'The entity\'s score 0-100 (0 when unmatched).' }),
    entity: t.field({ type: MatchedEntity, nullable: true, description: 'The entity; null when the IP has none in this dimension.', resolve: (d) => d.entity }),
    level: t.string({ nullable: true, description: 'Risk level of the entity\'s score.', resolve: (d) => d.level }),
    weight: t.exposeFloat('weight', { description: 'Weight of this dimension in the overall score.' }),
    contribution: t.exposeInt('contribution', { description: 'Points of the overall score due to this dimension (they add up to it).' }),
    source: t.string({ nullable: true, description: 'published, workspace or both: where the summary came from.', resolve: (d) => d.source }),
    evidence: t.field({ type: EvidenceCountsRef, nullable: true, description: 'Evidence counts.', resolve: (d) => d.evidence }),
    reason: t.string({ nullable: true, description: 'Why unmatched.', resolve: (d) => d.reason }),
  }),
});

const ScoreSummary = builder.objectRef<IpScore>('ScoreSummary').implement({
  description: 'Overall score and per-dimension evidence.',
  fields: (t) => ({
    overallScore: t.int({ description: 'Overall score 0-100.', resolve: (s) => s.overall_score }),
    overallRiskLevel: t.string({ description: 'minimal, low, medium, high or critical.', resolve: (s) => s.overall_risk_level }),
    matchedCount: t.int({ description: 'Dimensions with a summary.', resolve: (s) => s.matched_count }),
    driver: t.string({ nullable: true, description: 'The dimension that contributed most; null when the score is 0.', resolve: (s) => s.driver }),
    dimensions: t.field({ type: [DimensionScoreRef], description: 'All eight dimensions, most specific first.', resolve: (s) => s.dimensions }),
  }),
});

const CommunityWindow = builder.objectRef<CommunitySignal['recent_query_windows'][number]>('CommunityWindow').implement({
  description: 'One complete 10-minute window.',
  fields: (t) => ({
    label: t.exposeString('label', { description: 'UTC start, HH:MM.' }),
    hits: t.exposeInt('hits', { description: 'Lookups in the window.' }),
    requesters: t.exposeInt('requesters', { description: 'Distinct requester IPs in the window.' }),
  }),
});

const CommunitySignalRef = builder.objectRef<CommunitySignal>('CommunitySignal').implement({
  description: 'Lookup activity on this IP across all workspaces, on a 10-minute cadence.',
  fields: (t) => ({
    ok: t.exposeBoolean('ok', { description: 'Always true when present.' }),
    label: t.string({ description: 'quiet, active, converging or spiking.', resolve: (c) => c.state.label }),
    hasSpike: t.boolean({ description: 'A spike window among the last six.', resolve: (c) => c.state.has_spike }),
    lookups10m: t.int({ description: 'Lookups in the last complete window.', resolve: (c) => c.metrics.lookups_10m }),
    requesters60m: t.int({ description: 'Distinct requesters over the last six windows.', resolve: (c) => c.metrics.requesters_60m }),
    spikeWindows7d: t.int({ description: 'Spike windows in the last 7 days.', resolve: (c) => c.metrics.spike_windows_7d }),
    recentQueryWindows: t.field({ type: [CommunityWindow], description: 'The last six complete windows, oldest first.', resolve: (c) => c.recent_query_windows }),
  }),
});

const LastRating = builder.objectRef<NonNullable<IpMemory['last_rating']>>('LastRating').implement({
  description: 'The workspace\'s most recent rating of the IP.',
  fields: (t) => ({
    rating: t.exposeInt('rating', { description: '1 good, 0 neutral, -1 bad.' }),
    note: t.exposeString('note', { description: 'Its note.' }),
    createdAt: t.string({ description: 'When.', resolve: (r) => r.created_at }),
  }),
});

const IpMemoryRef = builder.objectRef<IpMemory>('IpMemory').implement({
  description: 'What the calling workspace itself wrote about the IP.',
  fields: (t) => ({
    goodRatings: t.int({ description: 'Good ratings.', resolve: (m) => m.ratings.good }),
    neutralRatings: t.int({ description: 'Neutral ratings.', resolve: (m) => m.ratings.neutral }),
    badRatings: t.int({ description: 'Bad ratings.', resolve: (m) => m.ratings.bad }),
    lastRating: t.field({ type: LastRating, nullable: true, description: 'Most recent rating.', resolve: (m) => m.last_rating }),
    reports: t.int({ description: 'Reports naming the IP.', resolve: (m) => m.reports }),
  }),
});

const LinkRef = builder.objectRef<{ code: string; url: string }>('ReportLinkUrl').implement({
  description: 'A direct report page.',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'Dimension code.' }),
    url: t.exposeString('url', { description: 'Page URL under BASE_URL.' }),
  }),
});

const ScoreResult = builder.objectRef<ScoreOutcome>('ScoreResult').implement({
  description: 'The answer of one metered score call.',
  fields: (t) => ({
    ip: t.exposeString('ip', { description: 'The canonical IP scored.' }),
    apiKey: t.field({ type: ApiKeyInfo, description: 'The key used.', resolve: (o) => o.apiKey }),
    quota: t.field({ type: Quota, description: 'Daily quota after this call.', resolve: (o) => o.quota }),
    score: t.field({ type: ScoreSummary, description: 'The score.', resolve: (o) => o.score }),
    communitySignal: t.field({ type: CommunitySignalRef, description: 'Community lookup activity.', resolve: (o) => o.community }),
    memory: t.field({ type: IpMemoryRef, description: 'The workspace\'s own memory of the IP.', resolve: (o) => o.memory }),
    reportLink: t.string({ description: 'Direct report page of the IP.', resolve: (o) => o.links.ip }),
    dimensionLinks: t.field({ type: [LinkRef], description: 'Direct report pages of the matched dimension entities.', resolve: (o) => Object.entries(o.links.dimensions).map(([code, url]) => ({ code, url })) }),
    publication: t.field({ type: PublicationInfo, description: 'The publication the score was computed from.', resolve: (o) => o.publication }),
  }),
});

builder.queryField('score', (t) =>
  t.field({
    type: ScoreResult,
    description: 'Score an IP. Metered: each successful call counts against the same daily quota as POST /risk_api/score/.',
    args: { ip: t.arg.string({ required: true, description: 'IPv4 or IPv6 address.' }) },
    resolve: (_root, args, ctx) => scoreRequest({ ip: args.ip, viewer: viewerOf(ctx), requester: ctx.clientIp }, ctx.services),
  }));
