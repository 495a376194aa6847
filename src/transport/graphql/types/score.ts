import { builder } from '../builder.ts';
import { textCost, type ListSize } from '../cost.ts';
import { DIMENSION_CODES, type DimensionCode } from '../../../domain/network/types.ts';
import { CommunityLabelEnum, DimensionCodeEnum, OutcomeCountRef, RiskLevelEnum } from './vocabularies.ts';
import type { DimensionReported } from '../../../domain/scoring/reported.ts';
import { MAX_LISTINGS, type FeedListing } from '../../../domain/scoring/evidence.ts';
import { OUTCOME_CODES } from '../../../domain/scoring/weights.ts';
import { RECENT_WINDOWS } from '../../../domain/community/windows.ts';
import { LIMITS } from '../../../domain/memory/schemas.ts';
import { requireIp } from '../../../domain/network/ip.ts';
import { ApiKeyInfo } from './workspace.ts';
import { PublicationInfo } from './network.ts';
import { ScoreOverrideRef } from './overrides.ts';
import type { ScoreOutcome } from '../../../domain/lookups/score-call.ts';
import { score as scoreOperation } from '../../operations/score.ts';
import type { CommunitySignal } from '../../../domain/community/signal.ts';
import type { NetworkSignal, NetworkSignals, ScoreCommunitySignal } from '../../../domain/community/networks.ts';
import type { QuotaPosture } from '../../../domain/metering/meter.ts';
import type { DimensionScore, IpScore, ScoreLayers } from '../../../domain/scoring/score.ts';
import type { EvidenceCounts } from '../../../domain/scoring/evidence.ts';
import type { IpMemory } from '../../../domain/memory/ip-memory.ts';

// Every score field is exposed under the domain object's own property name: graphql-jit compiles a field
// without a resolver to a plain property read, and the score selection has ~200 fields
// (docs/decisions/0009-graphql-jit-for-fixed-operations.md).

export const Quota = builder.objectRef<QuotaPosture>('Quota').implement({
  description: 'The daily score quota after this call (resets 00:00 UTC).',
  fields: (t) => ({
    dailyLimit: t.exposeInt('dailyLimit', { description: 'Successful score calls allowed per UTC day.' }),
    usedToday: t.exposeInt('usedToday', { description: 'Successful score calls counted today, this one included.' }),
    remaining: t.exposeInt('remaining', { description: 'dailyLimit - usedToday, never negative.' }),
    overLimit: t.exposeBoolean('overLimit', {
      description: 'True when no call is left today: the next score is refused until the reset.',
    }),
    resetsAt: t.exposeString('resetsAt', { description: 'When the count resets (next 00:00 UTC).' }),
    retryAfterSeconds: t.exposeInt('retryAfterSeconds', {
      description: 'Seconds until the reset, as the RateLimit-Reset header says.',
    }),
  }),
});

const EvidenceCountsRef = builder.objectRef<EvidenceCounts>('EvidenceCounts').implement({
  description: 'Evidence behind a dimension score.',
  fields: (t) => ({
    reports: t.exposeInt('reports', { description: 'Reports.' }),
    badRatings: t.exposeInt('badRatings', { description: 'Bad ratings.' }),
    neutralRatings: t.exposeInt('neutralRatings', { description: 'Neutral ratings.' }),
    goodRatings: t.exposeInt('goodRatings', { description: 'Good ratings.' }),
    feedListings: t.exposeInt('feedListings', { description: 'Threat-feed listings.' }),
  }),
});

const MatchedEntity = builder.objectRef<{ key: string; name: string }>('MatchedEntity').implement({
  description: 'The entity a dimension resolved to.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'Entity key.' }),
    name: t.exposeString('name', { description: 'Display name.' }),
  }),
});

const FeedListingRef = builder.objectRef<FeedListing>('FeedListing').implement({
  description: 'A feed listing a block.',
  fields: (t) => ({
    name: t.exposeString('feed', { description: "The feed's name." }),
    block: t.exposeString('block', { description: 'The block as the feed lists it (CIDR).' }),
  }),
});

const DimensionReportedRef = builder.objectRef<DimensionReported>('DimensionReported').implement({
  description:
    'What was reported about a dimension entity, as your workspace may see it (docs/risk-model.md#what-was-reported).',
  fields: (t) => ({
    outcomes: t.field({
      type: [OutcomeCountRef],
      resolve: (r) => Object.entries(r.countsByOutcome).map(([outcomeCode, reports]) => ({ outcomeCode, reports })),
      description:
        'Reports you can see (every community-visible report, and your own of any visibility; for ip, your own live) by outcome code, vocabulary order, only codes with a count.',
      extensions: { list: { max: OUTCOME_CODES.length } satisfies ListSize },
    }),
    sources: t.exposeInt('sources', {
      description:
        'Distinct reporting sources: workspaces (each once, yours included; another workspace counts only through its community-visible reports and is never named) plus feeds.',
    }),
    lastReportedAt: t.expose('lastReportedAt', {
      type: 'DateTime',
      nullable: true,
      description:
        'The newest of that evidence (a report, a rating, or the latest import of a listing feed); null when none.',
    }),
    feeds: t.expose('feeds', {
      type: [FeedListingRef],
      description: `Feeds listing the entity or a block holding it (for ip also the blocks listed in its subnet that hold the IP); at most ${MAX_LISTINGS}, by feed then block.`,
      extensions: { list: { max: MAX_LISTINGS } satisfies ListSize },
    }),
  }),
});

const DimensionScoreRef = builder.objectRef<DimensionScore>('DimensionScore').implement({
  description: 'One dimension of the score, with its explanation.',
  fields: (t) => ({
    code: t.expose('code', { type: DimensionCodeEnum, description: 'The dimension.' }),
    matched: t.exposeBoolean('matched', {
      description:
        "The entity's evidence counts: its score is at least 1, it holds good ratings, or (ip) your workspace has an own verdict.",
    }),
    score: t.exposeInt('score', { description: "The entity's score 0-100 (0 when unmatched)." }),
    entity: t.expose('entity', {
      type: MatchedEntity,
      nullable: true,
      description: 'The entity; null when the IP has none in this dimension.',
    }),
    level: t.expose('level', {
      type: RiskLevelEnum,
      nullable: true,
      description: "Risk level of the entity's score; null when unmatched.",
    }),
    weight: t.exposeFloat('weight', { description: 'Weight of this dimension in the overall score.' }),
    contribution: t.exposeInt('contribution', {
      description: 'Points of the overall score due to this dimension (they add up to it).',
    }),
    source: t.exposeString('source', {
      nullable: true,
      description: 'published, workspace or both: where the evidence came from; null when there is none.',
    }),
    evidence: t.expose('evidence', { type: EvidenceCountsRef, nullable: true, description: 'Evidence counts.' }),
    reason: t.exposeString('reason', {
      nullable: true,
      description:
        'Why unmatched. An ip without evidence of its own inside a block a feed lists names the feed and the block.',
    }),
    reported: t.expose('reported', {
      type: DimensionReportedRef,
      description: 'What was reported about the entity: outcomes, distinct sources, recency, listing feeds.',
    }),
  }),
});

const OwnVerdictEnum = builder.enumType('OwnVerdict', {
  description: "The side of a workspace's own latest word on an IP (docs/risk-model.md#the-workspaces-own-verdict).",
  values: {
    bad: { description: 'Its newest own evidence is bad.' },
    benign: { description: 'Its newest own evidence is benign.' },
  },
});

const ScoreLayersRef = builder.objectRef<ScoreLayers>('ScoreLayers').implement({
  description: 'How the score was reached, before any override rule (docs/risk-model.md#layers).',
  fields: (t) => ({
    publishedScore: t.exposeInt('publishedScore', {
      description:
        'The overall score from the published (global) evidence alone: what a workspace without evidence of its own gets.',
    }),
    publishedLevel: t.expose('publishedLevel', { type: RiskLevelEnum, description: 'Its risk level.' }),
    ownChange: t.exposeInt('ownChange', {
      description:
        "What your workspace's own evidence changed: publishedScore + ownChange is the score before any override rule.",
    }),
    ownVerdict: t.expose('ownVerdict', {
      type: OwnVerdictEnum,
      nullable: true,
      description: "Your workspace's own live verdict on the IP; null when it has none.",
    }),
    ownVerdictAt: t.expose('ownVerdictAt', {
      type: 'DateTime',
      nullable: true,
      description: 'The newest item of that verdict; null when none.',
    }),
    explanation: t.exposeString('explanation', {
      description: 'One sentence: what the published evidence gives and what your own evidence changed.',
    }),
  }),
});

const ScoreSummary = builder.objectRef<IpScore>('ScoreSummary').implement({
  description: 'Overall score and per-dimension evidence.',
  fields: (t) => ({
    overallScore: t.exposeInt('overallScore', { description: 'Overall score 0-100.' }),
    overallRiskLevel: t.expose('overallRiskLevel', {
      type: RiskLevelEnum,
      description: 'Risk level of the overall score.',
    }),
    matchedCount: t.exposeInt('matchedCount', { description: 'Dimensions whose evidence counts (matched).' }),
    confidence: t.exposeInt('confidence', {
      description:
        "How much independent, recent evidence backs overallScore (0-100), apart from the risk itself: each dimension's distinct sources (reported.sources) halved every 30 days since its reported.lastReportedAt, weighted by its part of the score, plus your own verdict as two sources. 0 means nobody has said anything (docs/risk-model.md#confidence).",
    }),
    layers: t.expose('layers', {
      type: ScoreLayersRef,
      description: 'Published evidence alone, and what your own evidence changed.',
    }),
    driver: t.expose('driver', {
      type: DimensionCodeEnum,
      nullable: true,
      description: 'The dimension that contributed most; null when the score is 0.',
    }),
    dimensions: t.expose('dimensions', {
      type: [DimensionScoreRef],
      description: 'All eight dimensions, most specific first.',
      extensions: { list: { max: DIMENSION_CODES.length } satisfies ListSize },
    }),
  }),
});

const CommunityWindow = builder.objectRef<CommunitySignal['recentQueryWindows'][number]>('CommunityWindow').implement({
  description: 'One complete 10-minute window.',
  fields: (t) => ({
    label: t.exposeString('label', { description: 'UTC start, HH:MM.' }),
    hits: t.exposeInt('hits', { description: 'Lookups in the window.' }),
    requesters: t.exposeInt('requesters', { description: 'Distinct requester IPs in the window.' }),
  }),
});

export const NetworkSignalRef = builder.objectRef<NetworkSignal>('NetworkSignal').implement({
  description:
    "Lookup activity on one network of the IP (its subnet or AS) across all workspaces: the same rules and metrics as the IP's own signal, without the window list.",
  fields: (t) => ({
    key: t.exposeString('key', {
      description: "The network's entity key, as in the score's dimensions (a CIDR, or AS<n>).",
    }),
    ok: t.exposeBoolean('ok', {
      description: "False when this network's signal could not be read for this call (label unavailable, zeros).",
    }),
    label: t.exposeString('label', {
      description: 'quiet, active, converging or spiking; unavailable when ok is false.',
    }),
    hasSpike: t.exposeBoolean('hasSpike', { description: 'A spike window among the last six.' }),
    lookups10m: t.exposeInt('lookups10m', {
      description: 'Lookups of any IP in the network in the last complete window.',
    }),
    requesters60m: t.exposeInt('requesters60m', { description: 'Distinct requesters over the last six windows.' }),
    spikeWindows7d: t.exposeInt('spikeWindows7d', { description: 'Spike windows in the last 7 days.' }),
  }),
});

const NetworkSignalsRef = builder.objectRef<NetworkSignals>('NetworkSignals').implement({
  description:
    "The community signal of the IP's networks, so activity spreading over a range shows before any single IP spikes.",
  fields: (t) => ({
    subnet: t.expose('subnet', {
      type: NetworkSignalRef,
      nullable: true,
      description: "The IP's subnet; null when it has none.",
    }),
    asn: t.expose('asn', {
      type: NetworkSignalRef,
      nullable: true,
      description: "The IP's autonomous system; null when it has none (unrouted address).",
    }),
  }),
});

const CommunitySignalRef = builder.objectRef<ScoreCommunitySignal>('CommunitySignal').implement({
  description: 'Lookup activity on this IP across all workspaces, on a 10-minute cadence.',
  fields: (t) => ({
    ok: t.exposeBoolean('ok', {
      description:
        'False when the signal could not be read for this call (label unavailable, zeros); the score is still answered.',
    }),
    label: t.expose('label', {
      type: CommunityLabelEnum,
      description: 'State of the lookup activity; unavailable when ok is false.',
    }),
    hasSpike: t.exposeBoolean('hasSpike', { description: 'A spike window among the last six.' }),
    lookups10m: t.exposeInt('lookups10m', { description: 'Lookups in the last complete window.' }),
    requesters60m: t.exposeInt('requesters60m', { description: 'Distinct requesters over the last six windows.' }),
    spikeWindows7d: t.exposeInt('spikeWindows7d', { description: 'Spike windows in the last 7 days.' }),
    recentQueryWindows: t.expose('recentQueryWindows', {
      type: [CommunityWindow],
      description: 'The last six complete windows, oldest first.',
      extensions: { list: { max: RECENT_WINDOWS } satisfies ListSize },
    }),
    networks: t.expose('networks', {
      type: NetworkSignalsRef,
      description: "The same signal for the IP's subnet and AS.",
    }),
  }),
});

const LastRating = builder.objectRef<NonNullable<IpMemory['lastRating']>>('LastRating').implement({
  description: "The workspace's most recent rating of the IP.",
  fields: (t) => ({
    rating: t.exposeInt('rating', { description: '1 good, 0 neutral, -1 bad.' }),
    note: t.exposeString('note', { description: 'Its note.', extensions: { cost: textCost(LIMITS.note) } }),
    createdAt: t.exposeString('createdAt', { description: 'When.' }),
  }),
});

const IpMemoryRef = builder.objectRef<IpMemory>('IpMemory').implement({
  description: 'What the calling workspace itself wrote about the IP.',
  fields: (t) => ({
    goodRatings: t.exposeInt('goodRatings', { description: 'Good ratings.' }),
    neutralRatings: t.exposeInt('neutralRatings', { description: 'Neutral ratings.' }),
    badRatings: t.exposeInt('badRatings', { description: 'Bad ratings.' }),
    lastRating: t.expose('lastRating', { type: LastRating, nullable: true, description: 'Most recent rating.' }),
    reports: t.exposeInt('reports', { description: 'Reports naming the IP.' }),
  }),
});

const LinkRef = builder.objectRef<{ code: DimensionCode; url: string }>('ReportLinkUrl').implement({
  description: 'A direct report page.',
  fields: (t) => ({
    code: t.expose('code', { type: DimensionCodeEnum, description: 'Dimension code.' }),
    url: t.exposeString('url', { description: 'Page URL under BASE_URL.' }),
  }),
});

export const ScoreResult = builder.objectRef<ScoreOutcome>('ScoreResult').implement({
  description: 'The answer of one metered score call.',
  fields: (t) => ({
    ip: t.exposeString('ip', { description: 'The canonical IP scored.' }),
    apiKey: t.expose('apiKey', { type: ApiKeyInfo, description: 'The key used.' }),
    quota: t.expose('quota', { type: Quota, description: 'Daily quota after this call.' }),
    score: t.expose('score', {
      type: ScoreSummary,
      description:
        "The score: its overall score and level after the workspace's override rule, if one applies; its dimensions as published.",
    }),
    override: t.expose('override', {
      type: ScoreOverrideRef,
      nullable: true,
      description: "The workspace's override rule that changed the overall score; null when none applies.",
    }),
    communitySignal: t.expose('communitySignal', {
      type: CommunitySignalRef,
      description: 'Community lookup activity.',
    }),
    memory: t.expose('memory', { type: IpMemoryRef, description: "The workspace's own memory of the IP." }),
    reportLink: t.exposeString('reportLink', { description: 'Direct report page of the IP.' }),
    dimensionLinks: t.expose('dimensionLinks', {
      type: [LinkRef],
      description: 'Direct report pages of the matched dimension entities.',
      extensions: { list: { max: DIMENSION_CODES.length } satisfies ListSize },
    }),
    publication: t.expose('publication', {
      type: PublicationInfo,
      description: 'The publication the score was computed from.',
    }),
  }),
});

builder.queryField('score', (t) =>
  t.field({
    type: ScoreResult,
    description:
      'Score an IP. Metered: each successful call counts against the same daily quota as POST /risk_api/score/.',
    args: { ip: t.arg.string({ required: true, description: 'IPv4 or IPv6 address.' }) },
    resolve: (_root, args, ctx) => scoreOperation.resolve({ ip: requireIp(args.ip) }, ctx),
  }),
);
