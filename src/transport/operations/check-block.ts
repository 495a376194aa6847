import { OUTCOME_CODES } from '../../domain/memory/vocabulary.ts';
import { BLOCK_BOUNDS } from '../../domain/network/block.ts';
import {
  DEFAULT_BLOCK_PAGE,
  MAX_BLOCK_PAGE,
  checkBlock as checkBlockOf,
  checkBlockInputSchema,
  type BlockOutcome,
} from '../../domain/lookups/block-check.ts';
import { viewerOf } from '../http/request-context.ts';
import {
  apiKey,
  count,
  enumOf,
  levelText,
  networkSignal,
  nullableDateTime,
  object,
  publication,
  RISK_LEVEL_WORDS,
  score0to100,
  scoreQuota,
  str,
  summary,
} from './schemas.ts';
import { exampleKey, examplePublication, summary as summaryExample } from './examples.ts';
import { defineOperation, METERED_ERRORS } from './operation.ts';
import { from, same } from './wire.ts';

/** The network of one code holding the whole block, or null (the domain lists those it found). */
const networkOf = (code: string) => (b: BlockOutcome) => b.networks.find((n) => n.code === code) ?? null;
/** Reports by outcome code, as the domain counts them in a list. */
const byOutcome = (b: BlockOutcome) => Object.fromEntries(b.totals.byOutcome.map((o) => [o.outcomeCode, o.reports]));

/** check_block: the block, the networks holding it, its evidence totals and one page of its IPs. */
const blockNetwork = (what: string) =>
  object(
    {
      key: from('entity.key', str),
      name: from('entity.name', str),
      size: from('entity.size', { type: 'number', minimum: 0, description: 'Addresses in the entity.' }),
      published: summary('The published (global) summary; null when none.'),
      workspace: summary("The calling workspace's own layer; null when none."),
    },
    {
      nullable: true,
      description: `The ${what} holding the whole block; null when the block spans more than one subnet (reason says why).`,
    },
  );
const ratingCounts = object(
  { good: count, neutral: count, bad: count },
  { description: "The calling workspace's ratings, by value." },
);

const checkBlockResponse = object({
  ok: { const: true },
  endpoint: { const: 'check_block' },
  query: same(
    object({
      input: { type: 'string', description: 'The cidr as sent.' },
      cidr: from('block.cidr', {
        type: 'string',
        description: 'The block read: the canonical form of the one sent (host bits cleared).',
      }),
      host_bits_cleared: from('block.hostBitsCleared', {
        type: 'boolean',
        description: 'true when the cidr sent had host bits set, which were cleared.',
      }),
    }),
  ),
  api_key: apiKey,
  quota: {
    ...scoreQuota,
    description: 'The daily score quota after this call: a block check counts as one score call.',
  },
  block: same(
    object({
      cidr: from('block.cidr', str),
      version: from('block.version', enumOf([4, 6])),
      prefix: from('block.prefix', { type: 'integer', minimum: 16, maximum: 128 }),
      first_address: from('block.first', str),
      last_address: from('block.last', str),
      size: from((b: BlockOutcome) => b.block.size.toString(), {
        type: 'string',
        pattern: '^[0-9]+$',
        description: 'Addresses in the block, as a decimal string (an IPv6 /48 holds 2^80).',
      }),
      networks: same(
        object({
          subnet: from(networkOf('subnet'), blockNetwork('subnet entity')),
          asn: from(networkOf('asn'), blockNetwork('autonomous system')),
          org: from(networkOf('org'), blockNetwork('organisation')),
          reason: from('networksReason', {
            type: ['string', 'null'],
            description: 'Why the networks are null; null when the block lies in one subnet.',
          }),
        }),
      ),
      counts_by_outcome: from(byOutcome, {
        type: 'object',
        propertyNames: enumOf(OUTCOME_CODES),
        additionalProperties: count,
        description:
          "Reports the caller may see (its workspace's, and every community-visible one) naming an IP of the block, by outcome code; each report once. Outcomes without reports are omitted.",
      }),
      reports: from('totals.reports', { ...count, description: 'Those reports in all.' }),
      ratings: from('totals.ratings', ratingCounts),
      first_seen: from('totals.firstSeen', {
        ...nullableDateTime,
        description: 'Oldest of those reports and ratings.',
      }),
      last_seen: from('totals.lastSeen', { ...nullableDateTime, description: 'Newest of those reports and ratings.' }),
      community_signal: from(
        'communitySignal',
        object(
          {
            available: { type: 'boolean', description: 'false when no subnet entity holds the whole block.' },
            reason: {
              type: ['string', 'null'],
              description: 'Why no signal describes the block; null when available.',
            },
            subnet: networkSignal('subnet', 'the subnet holding the block'),
          },
          { description: "Lookup activity on the block's subnet across all workspaces." },
        ),
      ),
    }),
  ),
  ips: object({
    items: {
      type: 'array',
      maxItems: MAX_BLOCK_PAGE,
      description: 'Reported or rated IPs of the block the caller may see, in address order.',
      items: object({
        ip: str,
        score: score0to100,
        level: enumOf(RISK_LEVEL_WORDS, `Risk level of the score: ${levelText}.`),
        reports: { ...count, description: 'Reports the caller may see naming the IP.' },
        ratings: ratingCounts,
        first_seen: nullableDateTime,
        last_seen: nullableDateTime,
      }),
    },
    next_cursor: { type: ['string', 'null'], description: 'Send as cursor for the next page; null on the last page.' },
  }),
  publication,
});

const checkBlockRequestExample = { cidr: '9.9.9.7/24', limit: 2 };
const checkBlockExample = {
  ok: true,
  endpoint: 'check_block',
  query: { input: '9.9.9.7/24', cidr: '9.9.9.0/24', host_bits_cleared: true },
  api_key: exampleKey,
  quota: { daily_limit: 1000, used_today: 19, remaining: 981, over_limit: false },
  block: {
    cidr: '9.9.9.0/24',
    version: 4,
    prefix: 24,
    first_address: '9.9.9.0',
    last_address: '9.9.9.255',
    size: '256',
    networks: {
      subnet: {
        key: '9.9.9.0/24',
        name: '9.9.9.0/24',
        size: 256,
        published: summaryExample(1, 'minimal', 0),
        workspace: summaryExample(2, 'minimal', 1),
      },
      asn: {
        key: 'AS19281',
        name: 'AS19281',
        size: 1792,
        published: summaryExample(1, 'minimal', 0),
        workspace: summaryExample(1, 'minimal', 1),
      },
      org: {
        key: 'quad9',
        name: 'Quad9',
        size: 2304,
        published: summaryExample(0, 'minimal', 0),
        workspace: summaryExample(1, 'minimal', 1),
      },
      reason: null,
    },
    counts_by_outcome: { fraud_watch: 2, spam: 1 },
    reports: 3,
    ratings: { good: 0, neutral: 0, bad: 1 },
    first_seen: '2026-11-23T09:58:12.602Z',
    last_seen: '2026-11-23T10:01:40.115Z',
    community_signal: {
      available: true,
      reason: null,
      subnet: {
        key: '9.9.9.0/24',
        ok: true,
        state: { label: 'active', has_spike: false },
        metrics: { lookups_10m: 14, requesters_60m: 3, spike_windows_7d: 0 },
      },
    },
  },
  ips: {
    items: [
      {
        ip: '9.9.9.9',
        score: 35,
        level: 'medium',
        reports: 2,
        ratings: { good: 0, neutral: 0, bad: 1 },
        first_seen: '2026-11-23T09:58:12.602Z',
        last_seen: '2026-11-23T09:58:12.633Z',
      },
      {
        ip: '9.9.9.10',
        score: 12,
        level: 'low',
        reports: 1,
        ratings: { good: 0, neutral: 0, bad: 0 },
        first_seen: '2026-11-23T10:01:40.115Z',
        last_seen: '2026-11-23T10:01:40.115Z',
      },
    ],
    next_cursor: '9.9.9.10',
  },
  publication: examplePublication,
};

/** POST /risk_api/check_block/, the GraphQL field `block` and the MCP tool check_block: one metered block check. */
export const checkBlock = defineOperation({
  name: 'check_block',
  path: '/risk_api/check_block',
  input: checkBlockInputSchema,
  resolve: (input, ctx) =>
    checkBlockOf(
      { ...input, viewer: viewerOf(ctx), surface: ctx.surface, via: ctx.via },
      { ...ctx.services, prisma: ctx.prisma },
    ),
  output: checkBlockResponse,
  metering: 'metered',
  doc: {
    tag: 'Scoring',
    operationId: 'checkBlock',
    summary: 'Check a CIDR block (metered: one score call)',
    description:
      `A CIDR block of IPv4 /${BLOCK_BOUNDS[4]} to /32 or IPv6 /${BLOCK_BOUNDS[6]} to /128 (a larger one is refused with 400 ` +
      'invalid_request naming the bound; host bits set are cleared, and query.cidr is the block read): the subnet, AS and organisation ' +
      'holding the whole block with their published summaries (null, with the reason, when the block spans more than one subnet), ' +
      "the reports the caller may see naming its IPs (its workspace's, and every community-visible one) counted by outcome, the " +
      "workspace's ratings, first and last seen, the community signal of its subnet, and a page of its reported and rated IPs in " +
      `address order, each with its score from the current publication (limit 1-${MAX_BLOCK_PAGE}, default ${DEFAULT_BLOCK_PAGE}; ` +
      "send next_cursor as cursor for the next page). Each page counts as ONE call on the daily score quota and the key's burst " +
      'limit, taken before the block is read; a refused call counts nothing. Needs a tier that includes score.',
    request: { schema: 'CheckBlockRequest', example: checkBlockRequestExample },
    response: { schema: 'CheckBlockResponse', description: 'Checked and counted.', example: checkBlockExample },
    errors: METERED_ERRORS,
  },
});
