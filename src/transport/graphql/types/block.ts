import { builder } from '../builder.ts';
import type { ListSize } from '../cost.ts';
import { checkBlock as checkBlockOperation } from '../../operations/check-block.ts';
import { checkInput } from '../../../domain/validation.ts';
import { ApiKeyInfo } from './workspace.ts';
import { NetworkSignalRef, Quota } from './score.ts';
import { DimensionEntityRef, PublicationInfo, RiskSummary } from './network.ts';
import { DimensionCodeEnum, OutcomeCountRef, RiskLevelEnum } from './vocabularies.ts';
import { OUTCOME_CODES } from '../../../domain/memory/vocabulary.ts';
import {
  DEFAULT_BLOCK_PAGE,
  MAX_BLOCK_PAGE,
  checkBlockInputSchema,
  type BlockIp,
  type BlockNetwork,
  type BlockOutcome,
  type BlockSignal,
} from '../../../domain/lookups/block-check.ts';

type Ratings = BlockIp['ratings'];

const RatingCounts = builder.objectRef<Ratings>('RatingCounts').implement({
  description: 'Ratings by value.',
  fields: (t) => ({
    good: t.exposeInt('good', { description: 'Ratings of 1.' }),
    neutral: t.exposeInt('neutral', { description: 'Ratings of 0.' }),
    bad: t.exposeInt('bad', { description: 'Ratings of -1.' }),
  }),
});

const BlockNetworkRef = builder.objectRef<BlockNetwork>('BlockNetwork').implement({
  description:
    'A network entity (subnet, AS, organisation) that holds the whole block, with the summaries the caller may see.',
  fields: (t) => ({
    code: t.expose('code', { type: DimensionCodeEnum, description: 'subnet, asn or org.' }),
    entity: t.expose('entity', { type: DimensionEntityRef, description: 'The entity.' }),
    published: t.expose('published', {
      type: RiskSummary,
      nullable: true,
      description: 'Its summary in the global layer of the current publication; null when none.',
    }),
    workspace: t.expose('workspace', {
      type: RiskSummary,
      nullable: true,
      description: "Its summary in the caller workspace's own layer; null when none.",
    }),
  }),
});

const BlockSignalRef = builder.objectRef<BlockSignal>('BlockSignal').implement({
  description: "The community signal of the block: its subnet's, when the whole block lies in one subnet entity.",
  fields: (t) => ({
    available: t.exposeBoolean('available', {
      description: 'False when no subnet entity holds the whole block (reason says why).',
    }),
    reason: t.exposeString('reason', {
      nullable: true,
      description: 'Why no signal describes the block; null when available.',
    }),
    subnet: t.expose('subnet', {
      type: NetworkSignalRef,
      nullable: true,
      description: 'The signal of the subnet holding the block.',
    }),
  }),
});

const BlockRef = builder.objectRef<BlockOutcome>('Block').implement({
  description: 'A CIDR block: the networks holding it and the evidence the caller may see inside it.',
  fields: (t) => ({
    cidr: t.string({ description: 'The canonical block (host bits cleared).', resolve: (b) => b.block.cidr }),
    version: t.int({ description: '4 or 6.', resolve: (b) => b.block.version }),
    prefix: t.int({ description: 'Prefix length.', resolve: (b) => b.block.prefix }),
    firstAddress: t.string({ description: 'The first address of the block.', resolve: (b) => b.block.first }),
    lastAddress: t.string({ description: 'The last address of the block.', resolve: (b) => b.block.last }),
    size: t.string({
      description: 'Addresses in the block, as a decimal string (an IPv6 /48 holds 2^80).',
      resolve: (b) => b.block.size.toString(),
    }),
    networks: t.field({
      type: [BlockNetworkRef],
      description: 'The subnet, AS and organisation holding the whole block; empty when it spans more than one subnet.',
      extensions: { list: { max: 3 } satisfies ListSize },
      resolve: (b) => b.networks,
    }),
    networksReason: t.string({
      nullable: true,
      description: 'Why networks is empty; null otherwise.',
      resolve: (b) => b.networksReason,
    }),
    countsByOutcome: t.field({
      type: [OutcomeCountRef],
      description:
        'Reports the caller may see (its own, and community-visible ones) naming an IP of the block, by outcome; each report once.',
      extensions: { list: { max: OUTCOME_CODES.length } satisfies ListSize },
      resolve: (b) => b.totals.byOutcome,
    }),
    reports: t.int({ description: 'Those reports in all.', resolve: (b) => b.totals.reports }),
    ratings: t.field({
      type: RatingCounts,
      description: "The caller workspace's ratings of the block's IPs.",
      resolve: (b) => b.totals.ratings,
    }),
    firstSeen: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Oldest of those reports and ratings.',
      resolve: (b) => b.totals.firstSeen,
    }),
    lastSeen: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Newest of those reports and ratings.',
      resolve: (b) => b.totals.lastSeen,
    }),
    communitySignal: t.expose('communitySignal', {
      type: BlockSignalRef,
      description: "Lookup activity on the block's subnet across all workspaces.",
    }),
  }),
});

const BlockIpRef = builder.objectRef<BlockIp>('BlockIp').implement({
  description: 'A reported or rated IP of the block, with its score from the current publication.',
  fields: (t) => ({
    ip: t.exposeString('ip', { description: "The canonical IP; the page's last one is its nextCursor." }),
    score: t.exposeInt('score', { description: 'Overall score 0-100, as score computes it (without metering it).' }),
    level: t.field({ type: RiskLevelEnum, description: 'Its risk level.', resolve: (i) => i.level }),
    reports: t.exposeInt('reports', { description: 'Reports the caller may see naming it.' }),
    ratings: t.expose('ratings', { type: RatingCounts, description: "The caller workspace's ratings of it." }),
    firstSeen: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Oldest of those reports and ratings.',
      resolve: (i) => i.firstSeen,
    }),
    lastSeen: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Newest of those reports and ratings.',
      resolve: (i) => i.lastSeen,
    }),
  }),
});

const BlockIpPageRef = builder.objectRef<BlockOutcome['ips']>('BlockIpPage').implement({
  description: "One page of the block's IPs in address order; its size is block(first:).",
  fields: (t) => ({
    nodes: t.expose('items', {
      type: [BlockIpRef],
      description: 'The IPs of the page.',
      extensions: { list: { max: MAX_BLOCK_PAGE } satisfies ListSize },
    }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'Pass as block(after:) for the next page; null on the last page.',
    }),
  }),
});

const BlockQueryRef = builder.objectRef<BlockOutcome>('BlockQuery').implement({
  description: 'The block asked for.',
  fields: (t) => ({
    input: t.exposeString('input', { description: 'The cidr as sent.' }),
    cidr: t.string({
      description: 'The block read: the canonical form of the one sent.',
      resolve: (b) => b.block.cidr,
    }),
    hostBitsCleared: t.boolean({
      description: 'True when the cidr sent had host bits set, which were cleared.',
      resolve: (b) => b.block.hostBitsCleared,
    }),
  }),
});

const BlockCheckRef = builder.objectRef<BlockOutcome>('BlockCheck').implement({
  description: 'The answer of one metered block check.',
  fields: (t) => ({
    query: t.field({ type: BlockQueryRef, description: 'The block asked for and the block read.', resolve: (b) => b }),
    apiKey: t.expose('apiKey', { type: ApiKeyInfo, description: 'The key used.' }),
    quota: t.expose('quota', { type: Quota, description: 'Daily quota after this call (one score call).' }),
    block: t.field({ type: BlockRef, description: 'The block.', resolve: (b) => b }),
    ips: t.expose('ips', {
      type: BlockIpPageRef,
      description: "A page of the block's reported and rated IPs the caller may see.",
    }),
    publication: t.expose('publication', {
      type: PublicationInfo,
      description: 'The publication the scores and summaries come from.',
    }),
  }),
});

builder.queryField('block', (t) =>
  t.field({
    type: BlockCheckRef,
    description:
      'Check a CIDR block (IPv4 /16 to /32, IPv6 /48 to /128), as POST /risk_api/check_block/ does: the networks holding it, ' +
      'the evidence the caller may see inside it, its community signal and a page of its reported and rated IPs in address order. ' +
      'Metered: counts as ONE score call on the same daily quota and burst limit; a refused call counts nothing.',
    args: {
      cidr: t.arg.string({ required: true, description: 'The block; host bits set are cleared.' }),
      first: t.arg.int({ description: `IPs per page, 1-${MAX_BLOCK_PAGE} (default ${DEFAULT_BLOCK_PAGE}).` }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
    },
    resolve: (_root, args, ctx) =>
      checkBlockOperation.resolve(
        checkInput(checkBlockInputSchema, { cidr: args.cidr, cursor: args.after, limit: args.first }),
        ctx,
      ),
  }),
);
