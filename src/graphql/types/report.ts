import { builder } from '../builder.ts';
import { viewerOf } from '../context.ts';

export const ReportType = builder.prismaObject('Report', {
  description: 'A typed outcome event stored by `report`.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Report id (integer, increasing).' }),
    eventType: t.exposeString('eventType', { description: 'observation, outcome or alert.' }),
    outcomeCode: t.exposeString('outcomeCode', { description: 'Outcome classification (see the README vocabulary).' }),
    severity: t.exposeString('severity', { description: 'info, low, medium, high or critical.' }),
    title: t.exposeString('title', { description: 'Short headline.' }),
    summary: t.exposeString('summary', { description: 'One-line summary.' }),
    details: t.exposeString('details', { description: 'Longer free text.' }),
    tags: t.exposeStringList('tags', { description: 'Lower-case tags.' }),
    status: t.exposeString('status', { description: 'Empty, open, confirmed, disputed or resolved.' }),
    sharePolicy: t.exposeString('sharePolicy', { description: 'TLP 2.0 style share policy of the subject.' }),
    namespace: t.exposeString('namespace', { description: 'Caller-chosen namespace, empty when none.' }),
    requestedVisibility: t.exposeString('requestedVisibility', { description: 'Visibility the writer asked for.' }),
    effectiveVisibility: t.exposeString('effectiveVisibility', { description: 'Visibility applied after the share policy.' }),
    policyNotice: t.exposeString('policyNotice', { description: 'Why the effective visibility differs, empty when it does not.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was stored.' }),
    subject: t.relation('subject', { description: 'The subject the report is about.' }),
    relatedSubjects: t.relation('links', {
      description: 'Related subjects with the role each played, in request order.',
      query: { orderBy: { position: 'asc' } },
    }),
  }),
});

builder.prismaObject('ReportLink', {
  description: 'A report\'s link to a related subject.',
  fields: (t) => ({
    role: t.exposeString('role', { description: 'The role the subject played, e.g. source_ip.' }),
    subject: t.relation('subject', { description: 'The related subject.' }),
    report: t.relation('report', { description: 'The report that links it.' }),
  }),
});

builder.queryField('report', (t) =>
  t.prismaField({
    type: 'Report',
    nullable: true,
    description: 'A report of the calling workspace by id (null when it does not exist or belongs to another workspace).',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.report.findFirst({ ...query, where: { id: args.id, workspaceId: viewerOf(ctx).workspaceId } }),
  }));
