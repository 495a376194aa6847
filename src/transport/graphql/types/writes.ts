import { builder } from '../builder.ts';
import { rate } from '../../operations/rate.ts';
import { report } from '../../operations/report.ts';
import { checkInput, given } from '../../../domain/validation.ts';
import { checkReportInput, rateInputSchema } from '../../../domain/memory/schemas.ts';
import type { RatingRow, ReportRow } from '../../../domain/memory/writes.ts';
import type { Written } from '../../../domain/memory/idempotency.ts';
import {
  EventTypeEnum,
  OutcomeCodeEnum,
  SeverityEnum,
  SharePolicyEnum,
  SubjectKindEnum,
  SubjectRoleEnum,
  VisibilityEnum,
} from './vocabularies.ts';

const FREE = { counted: false, reason: 'free_endpoint' };
const FreeQuota = builder.objectRef<typeof FREE>('FreeQuota').implement({
  description: 'Quota posture of a free endpoint: never counted.',
  fields: (t) => ({
    counted: t.exposeBoolean('counted', { description: 'Always false.' }),
    reason: t.exposeString('reason', { description: 'Always free_endpoint.' }),
  }),
});

/** True when a Prisma query plan needs nothing beyond the row and these relations. */
function coveredBy(query: { include?: Record<string, unknown>; select?: unknown }, relations: string[]): boolean {
  return query.select === undefined && Object.keys(query.include ?? {}).every((r) => relations.includes(r));
}

const RatePayload = builder.objectRef<Written<RatingRow>>('RatePayload').implement({
  description: 'Result of `rate`.',
  fields: (t) => ({
    rating: t.prismaField({
      type: 'Rating',
      description: 'The stored rating.',
      // The write already returned the row and its subject: answer from it unless more is asked for.
      resolve: (query, w, _a, ctx) =>
        w.row && coveredBy(query, ['subject'])
          ? w.row
          : ctx.prisma.rating.findUniqueOrThrow({ ...query, where: { id: w.id } }),
    }),
    replayed: t.boolean({
      description: 'True when an Idempotency-Key matched an earlier write and nothing new was written.',
      resolve: (w) => w.replayed,
    }),
    quota: t.field({ type: FreeQuota, description: 'Never counted against the score quota.', resolve: () => FREE }),
  }),
});

const ReportPayload = builder.objectRef<Written<ReportRow>>('ReportPayload').implement({
  description: 'Result of `report`.',
  fields: (t) => ({
    report: t.prismaField({
      type: 'Report',
      description: 'The stored report.',
      resolve: (query, w, _a, ctx) =>
        w.row && coveredBy(query, ['subject', 'links'])
          ? w.row
          : ctx.prisma.report.findUniqueOrThrow({ ...query, where: { id: w.id } }),
    }),
    replayed: t.boolean({
      description: 'True when an Idempotency-Key matched an earlier write and nothing new was written.',
      resolve: (w) => w.replayed,
    }),
    quota: t.field({ type: FreeQuota, description: 'Never counted against the score quota.', resolve: () => FREE }),
  }),
});

const RateInput = builder.inputType('RateInput', {
  description: 'Quick feedback about an IP. Validation rules are in the README (rate).',
  fields: (t) => ({
    ip: t.string({ required: true, description: 'IPv4 or IPv6 address; stored canonical.' }),
    rating: t.int({ required: true, description: '1 good, 0 neutral, -1 bad.' }),
    note: t.string({ description: 'Free-text comment, at most 1000 characters.' }),
  }),
});

const RelatedSubjectInput = builder.inputType('RelatedSubjectInput', {
  description: 'A subject linked to a report, with the role it played.',
  fields: (t) => ({
    kind: t.field({ type: SubjectKindEnum, required: true, description: 'Identifier family of the related subject.' }),
    key: t.string({ required: true, description: 'The identifier, normalised by kind.' }),
    role: t.field({ type: SubjectRoleEnum, description: 'Role it played (default linked), e.g. source_ip.' }),
  }),
});

export const ReportInput = builder.inputType('ReportInput', {
  description: 'A typed outcome event. Vocabularies and bounds are in the README (report).',
  fields: (t) => ({
    kind: t.field({ type: SubjectKindEnum, required: true, description: 'Identifier family of the subject.' }),
    key: t.string({ required: true, description: 'The identifier itself, interpreted by kind.' }),
    title: t.string({ description: 'Short headline (at most 200 characters).' }),
    summary: t.string({ description: 'One-line summary (at most 500 characters).' }),
    details: t.string({ description: 'Longer free text (at most 10000 characters).' }),
    outcomeCode: t.field({
      type: OutcomeCodeEnum,
      required: true,
      description: 'Outcome classification, e.g. fraud_watch.',
    }),
    severity: t.field({ type: SeverityEnum, description: 'Severity (default medium).' }),
    tags: t.stringList({ description: 'Up to 20 tags.' }),
    relatedSubjects: t.field({ type: [RelatedSubjectInput], description: 'Up to 50 related subjects.' }),
    sharePolicy: t.field({ type: SharePolicyEnum, description: 'TLP 2.0 style share policy (default clear_share).' }),
    visibility: t.field({ type: VisibilityEnum, description: 'Who sees the report (default workspace).' }),
    namespace: t.string({ description: 'Optional namespace (default empty).' }),
    eventType: t.field({ type: EventTypeEnum, description: 'Kind of event (default observation).' }),
    status: t.string({ description: 'Empty (default), open, confirmed, disputed or resolved.' }),
  }),
});

builder.mutationField('rate', (t) =>
  t.field({
    type: RatePayload,
    description: 'Record quick feedback about an IP (free, never counted).',
    args: {
      input: t.arg({ type: RateInput, required: true, description: 'The rating.' }),
      idempotencyKey: t.arg.string({
        description: 'Retry-safe key: a retry with the same key and input returns the first result.',
      }),
    },
    resolve: (_root, args, ctx) =>
      rate.resolve(checkInput(rateInputSchema, given(args.input)), ctx, args.idempotencyKey ?? undefined),
  }),
);

builder.mutationField('report', (t) =>
  t.field({
    type: ReportPayload,
    description: 'Record a typed outcome event about a subject, linked to related subjects (free, never counted).',
    args: {
      input: t.arg({ type: ReportInput, required: true, description: 'The report.' }),
      idempotencyKey: t.arg.string({
        description: 'Retry-safe key: a retry with the same key and input returns the first result.',
      }),
    },
    resolve: (_root, args, ctx) => report.resolve(checkReportInput(args.input), ctx, args.idempotencyKey ?? undefined),
  }),
);
