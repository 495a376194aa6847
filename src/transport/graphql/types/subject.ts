import { builder } from '../builder.ts';
import { workspaceDbOf, viewerOf, type RequestContext } from '../../http/request-context.ts';
import { loadersOf } from '../loaders.ts';
import { MAX_RAW_KEY, requireSubject } from '../../../domain/subjects/normalize.ts';
import type { SubjectKind } from '../../../domain/subjects/kinds.ts';
import { SubjectKindEnum } from './vocabularies.ts';
import { readDimensions } from '../../../domain/lookups/dimensions.ts';
import { REPORT_ORDER } from '../../../domain/analyst/report-filter.ts';
import { IpAddressRef } from './network.ts';
import { RELATED_LIMIT, type RelatedSubject } from '../../../domain/analyst/related.ts';
import { listLimit, textCost, type ListSize } from '../cost.ts';
import type { SubjectRowCount } from '../../../domain/analyst/counts.ts';

/**
 * `totalCount` of a subject's connection. Not the Prisma plugin's `totalCount: true`: that selects a
 * relation `_count`, which Prisma runs as a GROUP BY over the whole related table (every workspace's
 * reports) joined to the subjects afterwards, so each walk cost more as the Report table grew.
 * A first page that holds everything (no cursor, no `last`, no next page) already is the count;
 * otherwise one batched count per request reads only the subjects' own rows.
 */
type CountedPage = {
  /** The Subject row the connection hangs off (Pothos types it as the node shape; at run time it is the parent row). */
  parent: object;
  args: { after?: string | null; before?: string | null; last?: number | null };
  edges: readonly unknown[];
  pageInfo: { hasNextPage: boolean } | Promise<{ hasNextPage: boolean }>;
};
async function totalCountOf(what: SubjectRowCount, page: CountedPage, ctx: RequestContext): Promise<number> {
  const { after, before, last } = page.args;
  if (after == null && before == null && last == null && !(await page.pageInfo).hasNextPage) return page.edges.length;
  const { id } = page.parent as { id?: unknown };
  if (typeof id !== 'number') throw new Error(`totalCount of ${what}: the connection has no subject parent`);
  return loadersOf(ctx).counts[what].load(id);
}
const TOTAL_COUNT = 'Number of items matching, over all pages.';

export const SubjectType = builder.prismaNode('Subject', {
  description: 'A thing reports are about, identified by kind and normalised key, within one workspace.',
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'Numeric database id of this subject.' }),
    kind: t.field({ type: SubjectKindEnum, description: 'Identifier family.', resolve: (s) => s.kind as SubjectKind }),
    key: t.exposeString('key', {
      description: 'The normalised identifier.',
      extensions: { cost: textCost(MAX_RAW_KEY) },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When this workspace first mentioned it.' }),
    reports: t.relatedConnection(
      'reports',
      {
        description: 'Reports whose main subject this is, newest first.',
        cursor: 'id',
        query: { orderBy: REPORT_ORDER },
      },
      {
        description: "A page of a subject's reports.",
        fields: (c) => ({
          totalCount: c.int({
            description: TOTAL_COUNT,
            resolve: (page, _args, ctx) => totalCountOf('reports', page, ctx),
          }),
        }),
      },
      { description: 'A report with its cursor.' },
    ),
    mentions: t.relatedConnection(
      'links',
      {
        description:
          'Links from reports that name this subject as a related subject (with the role it played), newest report first.',
        cursor: 'reportId_subjectId_role',
        query: { orderBy: [{ reportId: 'desc' }, { role: 'asc' }] },
      },
      {
        description: 'A page of the links naming a subject.',
        fields: (c) => ({
          totalCount: c.int({
            description: TOTAL_COUNT,
            resolve: (page, _args, ctx) => totalCountOf('mentions', page, ctx),
          }),
        }),
      },
      { description: 'A link with its cursor.' },
    ),
    ratings: t.relatedConnection(
      'ratings',
      {
        description: 'Ratings of this subject (IP addresses only), newest first.',
        cursor: 'id',
        query: { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] },
      },
      {
        description: "A page of a subject's ratings.",
        fields: (c) => ({
          totalCount: c.int({
            description: TOTAL_COUNT,
            resolve: (page, _args, ctx) => totalCountOf('ratings', page, ctx),
          }),
        }),
      },
      { description: 'A rating with its cursor.' },
    ),
    relatedSubjects: t.field({
      type: [RelatedSubjectRef],
      description: `Other subjects linked through this subject's reports (as main subject or related subject), most shared reports first; at most ${RELATED_LIMIT}.`,
      args: { limit: t.arg.int({ description: `How many (0-${RELATED_LIMIT}; default all).` }) },
      extensions: { list: { max: RELATED_LIMIT, sizeArg: 'limit' } satisfies ListSize },
      resolve: async (subject, args, ctx) => {
        const n = listLimit(args.limit, RELATED_LIMIT);
        return (await loadersOf(ctx).related.load(subject.id)).slice(0, n);
      },
    }),
    ipDimensions: t.field({
      type: IpAddressRef,
      nullable: true,
      description:
        'For an ipaddress subject: its report hierarchy (prefix, AS, organisation, ISP, city, region, country) with published summaries; null for other kinds. Needs a score-eligible tier (tier_not_eligible otherwise).',
      resolve: (subject, _args, ctx) => {
        if (subject.kind !== 'ipaddress') return null;
        return readDimensions(subject.key, viewerOf(ctx), ctx.services, loadersOf(ctx).snapshot);
      },
    }),
  }),
});

export const RelatedSubjectRef = builder.objectRef<RelatedSubject>('RelatedSubject').implement({
  description: 'A subject that shares reports with another subject.',
  fields: (t) => ({
    roles: t.exposeStringList('roles', {
      description: 'Roles the other subject played in the shared reports ("subject" when it was the main subject).',
    }),
    sharedReports: t.exposeInt('sharedReports', { description: 'Number of reports naming both subjects.' }),
    subject: t.prismaField({
      type: 'Subject',
      description: 'The other subject.',
      resolve: (query, related, _args, ctx) => loadersOf(ctx).subjects(query).load(related.subjectId),
    }),
  }),
});

builder.queryField('subject', (t) =>
  t.prismaField({
    type: 'Subject',
    nullable: true,
    description: 'A subject of the calling workspace by kind and key (the key is normalised first, as on write).',
    args: {
      kind: t.arg({ type: SubjectKindEnum, required: true, description: 'Identifier family of the subject.' }),
      key: t.arg.string({ required: true, description: 'The identifier, normalised like on write.' }),
    },
    resolve: (query, _root, args, ctx) => {
      const db = workspaceDbOf(ctx);
      return db.subject.findFirst({ ...query, where: requireSubject(args.kind, args.key) });
    },
  }),
);
