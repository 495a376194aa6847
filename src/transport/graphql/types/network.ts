import { builder } from '../builder.ts';
import type { ListSize } from '../cost.ts';
import { viewerOf } from '../../http/request-context.ts';
import { dimensions } from '../../operations/dimensions.ts';
import { DIMENSION_CODES, type DimensionEntity } from '../../../domain/network/types.ts';
import type { RiskLevel } from '../../../domain/scoring/levels.ts';
import { DimensionCodeEnum, RiskLevelEnum } from './vocabularies.ts';
import type { PublishedEntity } from '../../../domain/publishing/index.ts';
import { requireIp } from '../../../domain/network/ip.ts';
import {
  readEntity,
  type DimensionRead,
  type EntitySummaries,
  type IpDimensions,
} from '../../../domain/lookups/dimensions.ts';

export const RiskSummary = builder.objectRef<PublishedEntity>('RiskSummary').implement({
  description: 'A published behavioural-risk summary of one dimension entity.',
  fields: (t) => ({
    score: t.exposeInt('score', { description: 'Risk score 0-100.' }),
    level: t.field({
      type: RiskLevelEnum,
      description: 'Risk level of the score.',
      resolve: (s) => s.level as RiskLevel,
    }),
    reports: t.int({ description: 'Reports counted as evidence.', resolve: (s) => s.counts.reports }),
    badRatings: t.int({ description: 'Bad ratings counted.', resolve: (s) => s.counts.badRatings }),
    neutralRatings: t.int({ description: 'Neutral ratings counted.', resolve: (s) => s.counts.neutralRatings }),
    goodRatings: t.int({ description: 'Good ratings counted.', resolve: (s) => s.counts.goodRatings }),
    feedListings: t.int({ description: 'Threat-feed listings counted.', resolve: (s) => s.counts.feedListings }),
    reporters: t.exposeInt('reporters', { description: 'Distinct reporters (workspaces and feeds).' }),
    firstSeen: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Oldest evidence.',
      resolve: (s) => s.firstSeen,
    }),
    lastSeen: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Newest evidence.',
      resolve: (s) => s.lastSeen,
    }),
  }),
});

export const DimensionEntityRef = builder.objectRef<DimensionEntity>('DimensionEntity').implement({
  description: 'An entity of one dimension of the report hierarchy (a prefix, an AS, a city, ...).',
  fields: (t) => ({
    code: t.expose('code', { type: DimensionCodeEnum, description: 'Dimension code.' }),
    key: t.exposeString('key', { description: 'Stable key of the entity (see the README for formats).' }),
    name: t.exposeString('name', { description: 'Display name.' }),
    size: t.exposeFloat('size', {
      description: "Approximate number of addresses it holds (in the queried IP's address family).",
    }),
  }),
});

const DimensionRef = builder.objectRef<DimensionRead>('Dimension').implement({
  description: "One dimension of an IP's report hierarchy with the summaries the caller may see.",
  fields: (t) => ({
    code: t.expose('code', { type: DimensionCodeEnum, description: 'Dimension code.' }),
    matched: t.exposeBoolean('matched', {
      description:
        "As the caller's score's dimension says: the entity's evidence moves its score (at least 1), holds good ratings, or (ip) the caller has an own verdict. A summary whose evidence rounds to 0 stays, unmatched, with the reason.",
    }),
    entity: t.field({
      type: DimensionEntityRef,
      nullable: true,
      description: 'The entity the IP resolved to; null when unresolved.',
      resolve: (d) => d.entity,
    }),
    reason: t.string({
      nullable: true,
      description: 'Why the dimension is unmatched; null when matched.',
      resolve: (d) => d.reason,
    }),
    published: t.field({
      type: RiskSummary,
      nullable: true,
      description: 'Summary in the global layer of the latest publication.',
      resolve: (d) => d.published,
    }),
    workspace: t.field({
      type: RiskSummary,
      nullable: true,
      description: "Summary of the caller workspace's own evidence (private to it).",
      resolve: (d) => d.workspace,
    }),
  }),
});

const SpecialRangeRef = builder.objectRef<{ cidr: string; name: string; reason: string }>('SpecialRange').implement({
  description: 'An IANA special-purpose block (private, loopback, documentation, ...).',
  fields: (t) => ({
    cidr: t.exposeString('cidr', { description: 'The block.' }),
    name: t.exposeString('name', { description: 'Its IANA name.' }),
    reason: t.exposeString('reason', { description: 'Why it is not scored like a public address.' }),
  }),
});

export const PublicationInfo = builder
  .objectRef<{ version: number; publishedAt: Date | null }>('PublicationInfo')
  .implement({
    description: 'The publication a read was answered from.',
    fields: (t) => ({
      version: t.exposeInt('version', { description: 'Publication version (0: nothing published yet).' }),
      publishedAt: t.expose('publishedAt', { type: 'DateTime', nullable: true, description: 'When it was published.' }),
    }),
  });

export const IpAddressRef = builder.objectRef<IpDimensions>('IpAddress').implement({
  description: 'An IP address resolved into its report hierarchy.',
  fields: (t) => ({
    address: t.string({ description: 'Canonical address.', resolve: (d) => d.hierarchy.ip }),
    version: t.int({ description: '4 or 6.', resolve: (d) => d.hierarchy.version }),
    special: t.field({
      type: SpecialRangeRef,
      nullable: true,
      description: 'The special-purpose block it falls in, if any.',
      resolve: (d) => d.hierarchy.special,
    }),
    subnetSource: t.string({
      description: 'announced (routing data), fallback (/24 or /48) or none (special address).',
      resolve: (d) => d.hierarchy.subnetSource,
    }),
    publication: t.field({
      type: PublicationInfo,
      description: 'The publication these summaries come from.',
      resolve: (d) => d.snapshot,
    }),
    dimensions: t.field({
      type: [DimensionRef],
      description: 'All eight dimensions, most specific first.',
      extensions: { list: { max: DIMENSION_CODES.length } satisfies ListSize },
      resolve: (d) => d.dimensions,
    }),
  }),
});

builder.queryField('ip', (t) =>
  t.field({
    type: IpAddressRef,
    description:
      "Raw dimensional read: an IP's hierarchy and the published summary of each entity. Unmetered, but needs a score-eligible tier (tier_not_eligible otherwise).",
    args: { address: t.arg.string({ required: true, description: 'IPv4 or IPv6 address.' }) },
    resolve: (_root, args, ctx) => {
      viewerOf(ctx); // a missing key is named before a bad address, as on REST
      return dimensions.resolve({ ip: requireIp(args.address, 'ip') }, ctx);
    },
  }),
);

export const EntityView = builder.objectRef<EntitySummaries>('DimensionEntitySummary').implement({
  description: 'The summaries of one dimension entity, looked up by code and key.',
  fields: (t) => ({
    code: t.expose('code', { type: DimensionCodeEnum, description: 'Dimension code.' }),
    key: t.exposeString('key', { description: 'Entity key.' }),
    name: t.string({
      nullable: true,
      description: 'Display name, when published.',
      resolve: (e) => e.published?.name ?? e.workspace?.name ?? null,
    }),
    published: t.field({
      type: RiskSummary,
      nullable: true,
      description: 'Global summary.',
      resolve: (e) => e.published,
    }),
    workspace: t.field({
      type: RiskSummary,
      nullable: true,
      description: "The caller workspace's own summary.",
      resolve: (e) => e.workspace,
    }),
    publication: t.field({ type: PublicationInfo, description: 'The publication read.', resolve: (e) => e }),
  }),
});

builder.queryField('dimensionEntity', (t) =>
  t.field({
    type: EntityView,
    description:
      'A dimension entity by code and key (e.g. code "asn", key "AS13335") with its summaries. Unmetered, but needs a score-eligible tier (tier_not_eligible otherwise).',
    args: {
      code: t.arg({ type: DimensionCodeEnum, required: true, description: 'The dimension.' }),
      key: t.arg.string({ required: true, description: 'Entity key as returned in dimensions.' }),
    },
    resolve: (_root, args, ctx) => {
      return readEntity(args.code, args.key, viewerOf(ctx), ctx.services, ctx.services.publications.current());
    },
  }),
);
