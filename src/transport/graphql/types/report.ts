import { builder } from '../builder.ts';
import { workspaceDbOf } from '../../http/request-context.ts';
import { REPORT_ORDER, parseReportFilter, reportWhere } from '../../../domain/analyst/report-filter.ts';
import { LIMITS } from '../../../domain/memory/schemas.ts';
import { listLimit, textCost, type ListSize } from '../cost.ts';
import type {
  EventType,
  OutcomeCode,
  Role,
  Severity,
  SharePolicy,
  Visibility,
} from '../../../domain/memory/vocabulary.ts';
import {
  EventTypeEnum,
  OutcomeCodeEnum,
  SeverityEnum,
  SharePolicyEnum,
  SubjectKindEnum,
  SubjectRoleEnum,
  VisibilityEnum,
} from './vocabularies.ts';

// Stored vocabulary columns are text; the write rules (domain/memory/schemas.ts) let only the vocabulary's codes in.
export const ReportType = builder.prismaNode('Report', {
  description: 'A typed outcome event stored by `report`.',
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'Report id (integer, increasing); the id the REST API returns.' }),
    eventType: t.field({
      type: EventTypeEnum,
      description: 'Kind of event.',
      resolve: (r) => r.eventType as EventType,
    }),
    outcomeCode: t.field({
      type: OutcomeCodeEnum,
      description: 'Outcome classification.',
      resolve: (r) => r.outcomeCode as OutcomeCode,
    }),
    severity: t.field({ type: SeverityEnum, description: 'Severity.', resolve: (r) => r.severity as Severity }),
    title: t.exposeString('title', { description: 'Short headline.', extensions: { cost: textCost(LIMITS.title) } }),
    summary: t.exposeString('summary', {
      description: 'One-line summary.',
      extensions: { cost: textCost(LIMITS.summary) },
    }),
    details: t.exposeString('details', {
      description: 'Longer free text.',
      extensions: { cost: textCost(LIMITS.details) },
    }),
    tags: t.exposeStringList('tags', {
      description: 'Lower-case tags.',
      extensions: { cost: textCost(LIMITS.tags * LIMITS.tagLength) },
    }),
    status: t.exposeString('status', { description: 'Empty, open, confirmed, disputed or resolved.' }),
    sharePolicy: t.field({
      type: SharePolicyEnum,
      description: 'TLP 2.0 style share policy of the subject.',
      resolve: (r) => r.sharePolicy as SharePolicy,
    }),
    namespace: t.exposeString('namespace', { description: 'Caller-chosen namespace, empty when none.' }),
    requestedVisibility: t.field({
      type: VisibilityEnum,
      description: 'Visibility the writer asked for.',
      resolve: (r) => r.requestedVisibility as Visibility,
    }),
    effectiveVisibility: t.field({
      type: VisibilityEnum,
      description: 'Visibility applied after the share policy.',
      resolve: (r) => r.effectiveVisibility as Visibility,
    }),
    policyNotice: t.exposeString('policyNotice', {
      description: 'Why the effective visibility differs, empty when it does not.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was stored.' }),
    subject: t.relation('subject', { description: 'The subject the report is about.' }),
    relatedSubjects: t.relation('links', {
      description: `Related subjects with the role each played, in request order (at most ${LIMITS.relatedSubjects} by the write rules; \`limit\` takes the first ones).`,
      args: { limit: t.arg.int({ description: `How many (0-${LIMITS.relatedSubjects}; default all).` }) },
      query: (args) => ({ orderBy: { position: 'asc' }, take: listLimit(args.limit, LIMITS.relatedSubjects) }),
      extensions: { list: { max: LIMITS.relatedSubjects, sizeArg: 'limit' } satisfies ListSize },
    }),
  }),
});

builder.prismaObject('ReportLink', {
  description: "A report's link to a related subject.",
  fields: (t) => ({
    role: t.field({
      type: SubjectRoleEnum,
      description: 'The role the subject played, e.g. source_ip.',
      resolve: (l) => l.role as Role,
    }),
    position: t.exposeInt('position', {
      description: "Position of the link in the report's related subjects (0-based).",
    }),
    subject: t.relation('subject', { description: 'The related subject.' }),
    report: t.relation('report', { description: 'The report that links it.' }),
  }),
});

export const ReportFilterInput = builder.inputType('ReportFilter', {
  description:
    'Which reports to list. Every list means "any of"; fields combine with AND. Also used by the REST export.',
  fields: (t) => ({
    kind: t.field({
      type: [SubjectKindEnum],
      description: "Kinds of the report's main subject, e.g. [ipaddress, email].",
    }),
    outcomeCode: t.field({ type: [OutcomeCodeEnum], description: 'Outcome codes, e.g. [account_takeover].' }),
    severity: t.field({ type: [SeverityEnum], description: 'Severities.' }),
    sharePolicy: t.field({ type: [SharePolicyEnum], description: 'Share policies, e.g. [clear_share].' }),
    namespace: t.stringList({ description: 'Namespaces ("" is the default namespace).' }),
    tags: t.stringList({ description: 'Reports carrying ALL of these tags.' }),
    from: t.field({ type: 'DateTime', description: 'Stored at or after this instant.' }),
    to: t.field({ type: 'DateTime', description: 'Stored before this instant.' }),
    text: t.string({ description: 'Case-insensitive substring of the title or the summary.' }),
  }),
});

const filterOf = (input: Record<string, unknown> | null | undefined) => parseReportFilter(input, (f) => `filter.${f}`);

builder.queryField('report', (t) =>
  t.prismaField({
    type: 'Report',
    nullable: true,
    description:
      'A report of the calling workspace by database id (null when it does not exist or belongs to another workspace).',
    args: { id: t.arg.int({ required: true, description: "The report's databaseId." }) },
    resolve: (query, _root, args, ctx) => workspaceDbOf(ctx).report.findFirst({ ...query, where: { id: args.id } }),
  }),
);

builder.queryField('reports', (t) =>
  t.prismaConnection(
    {
      type: 'Report',
      cursor: 'id',
      description:
        "The calling workspace's reports, newest first (by time, then id), filtered. Cursors hold a report's position, so reports stored between two page reads never shift or repeat items.",
      args: { filter: t.arg({ type: ReportFilterInput, description: 'Which reports; all when omitted.' }) },
      totalCount: (_root, args, ctx) => workspaceDbOf(ctx).report.count({ where: reportWhere(filterOf(args.filter)) }),
      resolve: (query, _root, args, ctx) =>
        workspaceDbOf(ctx).report.findMany({
          ...query,
          where: reportWhere(filterOf(args.filter)),
          orderBy: REPORT_ORDER,
        }),
    },
    { description: 'A page of reports.' },
    { description: 'A report with its cursor.' },
  ),
);
