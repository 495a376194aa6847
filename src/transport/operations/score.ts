import { RATING_VALUES } from '../../domain/memory/vocabulary.ts';
import { ipQuerySchema } from '../../domain/memory/schemas.ts';
import { DIMENSION_CODES } from '../../domain/network/types.ts';
import { MAX_LISTINGS } from '../../domain/scoring/evidence.ts';
import { OUTCOME_CODES } from '../../domain/scoring/weights.ts';
import { scoreRequest, type ScoreOutcome } from '../../domain/lookups/score-call.ts';
import { viewerOf } from '../http/request-context.ts';
import {
  count,
  dateTime,
  dimensionCode,
  enumOf,
  levelText,
  networkSignal,
  nullableEnumOf,
  object,
  overrideApplied,
  publication,
  RISK_LEVEL_WORDS,
  score0to100,
  signalParts,
  str,
  counts,
  apiKey,
  nullableDateTime,
  scoreQuota,
} from './schemas.ts';
import {
  counts as countsExample,
  EXAMPLE_BASE as BASE,
  exampleKey,
  examplePublication,
  ipRequestExample,
} from './examples.ts';
import { defineOperation, METERED_ERRORS } from './operation.ts';
import { from, same } from './wire.ts';

/** What was reported about one dimension's entity (docs/risk-model.md#what-was-reported). */
const dimensionReported = object(
  {
    counts_by_outcome: {
      type: 'object',
      propertyNames: enumOf(OUTCOME_CODES),
      additionalProperties: { ...count, minimum: 1 },
      description:
        'Reports you can see about the entity (every community-visible report, and your own of any visibility; for ip, your own live ones), by outcome code, as check_block counts them; outcomes without reports are omitted.',
    },
    sources: {
      ...count,
      description:
        'Distinct reporting sources behind that evidence: workspaces (each once, yours included; another workspace counts only through its community-visible reports and is never named) plus feeds.',
    },
    last_reported_at: {
      ...nullableDateTime,
      description:
        'The newest of that evidence: a report, a rating, or the latest import of a feed listing the entity; null when none.',
    },
    feeds: {
      type: 'array',
      description: `Feeds listing the entity itself or a block holding it (for ip also the blocks listed in its subnet that hold the IP), by feed and block as listed; at most ${MAX_LISTINGS} per entity, ordered by feed then block.`,
      items: object({ name: from('feed', str), block: str }),
    },
  },
  {
    description:
      'What was reported about the entity, as your workspace may see it (docs/risk-model.md#what-was-reported).',
  },
);

/** The report pages of the matched dimensions, by dimension code (the domain holds them as a list). */
function linksByCode(s: Pick<ScoreOutcome, 'dimensionLinks'>): Record<string, string> {
  const byCode: Record<string, string> = {};
  for (const l of s.dimensionLinks) byCode[l.code] = l.url;
  return byCode;
}

/**
 * One IP's score answer in wire names, read from the domain's ScoreOutcome. Its parts past `quota` are also each
 * IP's answer in a batch (score-batch.ts).
 */
export const scoreResponse = object({
  ok: { const: true },
  endpoint: { const: 'score' },
  query: same(object({ ip: { type: 'string', description: 'The address scored, in canonical form.' } })),
  api_key: apiKey,
  quota: scoreQuota,
  score: object({
    overall_score: score0to100,
    overall_risk_level: enumOf(RISK_LEVEL_WORDS, `Risk level of the overall score: ${levelText}.`),
    matched_count: {
      type: 'integer',
      minimum: 0,
      maximum: DIMENSION_CODES.length,
      description: 'Dimensions whose evidence counts (matched).',
    },
    driver: nullableEnumOf(DIMENSION_CODES, 'The dimension that contributed most; null when the score is 0.'),
    confidence: {
      ...score0to100,
      description:
        "How much independent, recent evidence backs overall_score, apart from the risk itself: each dimension's distinct sources (reported.sources) halved every 30 days since its reported.last_reported_at, weighted by its part of the score, plus your own verdict as two sources; 100·(1 − e^(−support/2)). 0 means nobody has said anything (unknown, not clean). docs/risk-model.md#confidence.",
    },
    layers: object(
      {
        published_score: {
          ...score0to100,
          description:
            'The overall score from the published (global) evidence alone: what a workspace without evidence of its own gets.',
        },
        published_level: enumOf(RISK_LEVEL_WORDS, 'Its risk level.'),
        own_change: {
          type: 'integer',
          minimum: -100,
          maximum: 100,
          description:
            "What your workspace's own evidence changed: published_score + own_change is the score before any override rule (override.evidence_score when one applies).",
        },
        own_verdict: nullableEnumOf(
          ['bad', 'benign'],
          "Your workspace's own live verdict on the IP (its latest word: the newer of its bad and its benign evidence); null when it has none.",
        ),
        own_verdict_at: { ...nullableDateTime, description: 'The newest item of that verdict; null when none.' },
        explanation: {
          type: 'string',
          description: 'One sentence: what the published evidence gives and what your own evidence changed.',
        },
      },
      { description: 'How the score was reached, before any override rule (docs/risk-model.md#layers).' },
    ),
    dimensions: {
      type: 'array',
      minItems: DIMENSION_CODES.length,
      maxItems: DIMENSION_CODES.length,
      description: `All ${DIMENSION_CODES.length}, in the order ${DIMENSION_CODES.join(', ')}.`,
      items: object({
        code: dimensionCode,
        matched: {
          type: 'boolean',
          description:
            "The entity's evidence counts: its score is at least 1, its evidence holds good ratings, or (ip) your workspace has an own verdict on the IP. An entity whose evidence rounds to 0 stays in the answer, unmatched.",
        },
        score: score0to100,
        entity: object(
          { key: str, name: str },
          { nullable: true, description: 'null when the IP has none in this dimension.' },
        ),
        level: nullableEnumOf(RISK_LEVEL_WORDS, "Risk level of the entity's score; null when unmatched."),
        weight: { type: 'number', minimum: 0 },
        contribution: {
          ...count,
          description:
            'Points of the overall score due to this dimension (they add up to it, or to override.evidence_score when a rule changed it).',
        },
        source: nullableEnumOf(
          ['published', 'workspace', 'both'],
          'Where the evidence came from (workspace: your own, for ip your live memory); null when there is none.',
        ),
        reason: {
          type: ['string', 'null'],
          description:
            'Why unmatched; null when matched. An ip without evidence of its own inside a block a feed lists names the feed and the block.',
        },
        evidence: {
          ...object(counts.properties, { nullable: true }),
          description: 'Evidence counts; null when there is none.',
        },
        reported: dimensionReported,
      }),
    },
  }),
  override: overrideApplied,
  community_signal: object(
    {
      ...signalParts,
      recent_query_windows: {
        type: 'array',
        items: object({
          label: { type: 'string', description: 'UTC start of the 10-minute window, HH:MM.' },
          hits: count,
          requesters: count,
        }),
      },
      networks: object(
        {
          subnet: networkSignal('subnet', "the IP's announced or fallback subnet"),
          asn: networkSignal('asn', 'the autonomous system announcing the IP'),
        },
        {
          description:
            "The same signal for the IP's networks, so lookups spreading over a range show before any single IP spikes.",
        },
      ),
    },
    { description: 'Lookup activity on this IP across all workspaces (docs/risk-model.md, community signal).' },
  ),
  links: same(
    object({
      ip: from('reportLink', {
        type: 'string',
        format: 'uri',
        description: 'Direct report page of the IP (control plane).',
      }),
      dimensions: from(linksByCode, {
        type: 'object',
        propertyNames: dimensionCode,
        additionalProperties: { type: 'string', format: 'uri' },
        description: 'Report page of each matched dimension entity, by dimension code.',
      }),
    }),
  ),
  workspace_memory: from(
    'memory',
    object(
      {
        ratings: same(
          object({
            good: from('goodRatings', count),
            neutral: from('neutralRatings', count),
            bad: from('badRatings', count),
          }),
        ),
        last_rating: object({ rating: enumOf(RATING_VALUES), note: str, created_at: dateTime }, { nullable: true }),
        reports: { ...count, description: 'Reports of the workspace naming the IP.' },
      },
      { description: 'What the calling workspace itself wrote about the IP.' },
    ),
  ),
  publication,
});

const evidence = countsExample(1, 1);
const unlocated = 'the geo data has no location for this address';
/** What was reported about each of 9.9.9.9's entities: its one fraud_watch report (another workspace's, community-visible) and the caller's bad rating. */
const reported = {
  counts_by_outcome: { fraud_watch: 1 },
  sources: 2,
  last_reported_at: '2026-11-23T09:58:12.633Z',
  feeds: [],
};
const nothingReported = { counts_by_outcome: {}, sources: 0, last_reported_at: null, feeds: [] };

/** The example answer (score-batch.ts shows the same objects per item). */
export const scoreExample = {
  ok: true,
  endpoint: 'score',
  query: { ip: '9.9.9.9' },
  api_key: exampleKey,
  quota: { daily_limit: 1000, used_today: 17, remaining: 983, over_limit: false },
  score: {
    overall_score: 35,
    overall_risk_level: 'medium',
    matched_count: 5,
    driver: 'ip',
    confidence: 48,
    layers: {
      published_score: 35,
      published_level: 'medium',
      own_change: 0,
      own_verdict: null,
      own_verdict_at: null,
      explanation:
        'Published evidence alone gives 35 (medium); your workspace has no evidence of its own that changes it.',
    },
    dimensions: [
      {
        code: 'ip',
        matched: true,
        score: 33,
        entity: { key: '9.9.9.9', name: '9.9.9.9' },
        level: 'medium',
        weight: 1,
        contribution: 33,
        source: 'both',
        reason: null,
        evidence,
        reported,
      },
      {
        code: 'subnet',
        matched: true,
        score: 2,
        entity: { key: '9.9.9.0/24', name: '9.9.9.0/24' },
        level: 'minimal',
        weight: 0.6,
        contribution: 1,
        source: 'both',
        reason: null,
        evidence,
        reported,
      },
      {
        code: 'isp',
        matched: true,
        score: 1,
        entity: { key: 'quad9', name: 'Quad9' },
        level: 'minimal',
        weight: 0.4,
        contribution: 0,
        source: 'both',
        reason: null,
        evidence,
        reported,
      },
      {
        code: 'asn',
        matched: true,
        score: 1,
        entity: { key: 'AS19281', name: 'AS19281' },
        level: 'minimal',
        weight: 0.45,
        contribution: 1,
        source: 'both',
        reason: null,
        evidence,
        reported,
      },
      {
        code: 'org',
        matched: true,
        score: 1,
        entity: { key: 'quad9', name: 'Quad9' },
        level: 'minimal',
        weight: 0.4,
        contribution: 0,
        source: 'both',
        reason: null,
        evidence,
        reported,
      },
      {
        code: 'city',
        matched: false,
        score: 0,
        entity: null,
        level: null,
        weight: 0.2,
        contribution: 0,
        source: null,
        reason: unlocated,
        evidence: null,
        reported: nothingReported,
      },
      {
        code: 'region',
        matched: false,
        score: 0,
        entity: null,
        level: null,
        weight: 0.15,
        contribution: 0,
        source: null,
        reason: unlocated,
        evidence: null,
        reported: nothingReported,
      },
      {
        code: 'country',
        matched: false,
        score: 0,
        entity: null,
        level: null,
        weight: 0.1,
        contribution: 0,
        source: null,
        reason: unlocated,
        evidence: null,
        reported: nothingReported,
      },
    ],
  },
  community_signal: {
    ok: true,
    state: { label: 'quiet', has_spike: false },
    metrics: { lookups_10m: 0, requesters_60m: 0, spike_windows_7d: 0 },
    recent_query_windows: ['09:00', '09:10', '09:20', '09:30', '09:40', '09:50'].map((label) => ({
      label,
      hits: 0,
      requesters: 0,
    })),
    networks: {
      subnet: {
        key: '9.9.9.0/24',
        ok: true,
        state: { label: 'active', has_spike: false },
        metrics: { lookups_10m: 14, requesters_60m: 3, spike_windows_7d: 0 },
      },
      asn: {
        key: 'AS19281',
        ok: true,
        state: { label: 'active', has_spike: false },
        metrics: { lookups_10m: 31, requesters_60m: 5, spike_windows_7d: 0 },
      },
    },
  },
  links: {
    ip: `${BASE}/workspace/reports/ip/9.9.9.9`,
    dimensions: {
      ip: `${BASE}/workspace/reports/ip/9.9.9.9`,
      subnet: `${BASE}/workspace/reports/subnet/9.9.9.0%2F24`,
      isp: `${BASE}/workspace/reports/isp/quad9`,
      asn: `${BASE}/workspace/reports/asn/AS19281`,
      org: `${BASE}/workspace/reports/org/quad9`,
    },
  },
  workspace_memory: {
    ratings: { good: 0, neutral: 0, bad: 1 },
    last_rating: { rating: -1, note: 'mule', created_at: '2026-11-23T09:58:12.633Z' },
    reports: 1,
  },
  publication: examplePublication,
};
// No rule of the workspace covers 9.9.9.9: the score is the evidence's (overrideRuleExample shows one that does).
Object.assign(scoreExample, { override: null });

/** POST /risk_api/score/, the GraphQL field `score` and the MCP tool score_ip: one metered score call. */
export const score = defineOperation({
  name: 'score',
  path: '/risk_api/score',
  input: ipQuerySchema,
  resolve: ({ ip }, ctx) =>
    scoreRequest(
      { ip, viewer: viewerOf(ctx), requester: ctx.clientIp, surface: ctx.surface, via: ctx.via },
      ctx.services,
    ),
  output: scoreResponse,
  metering: 'metered',
  doc: {
    tag: 'Scoring',
    operationId: 'score',
    summary: 'Score an IP (metered)',
    description:
      'The overall risk score of an IP, its eight dimensions with their explanation, the community signal and the ' +
      "workspace's own memory of it. Each successful call counts once against the daily score quota (RateLimit-* headers); " +
      'a refused call counts nothing. Needs a tier that includes score.',
    request: { schema: 'IpRequest', example: ipRequestExample },
    response: { schema: 'ScoreResponse', description: 'Scored and counted.', example: scoreExample },
    errors: METERED_ERRORS,
  },
});
