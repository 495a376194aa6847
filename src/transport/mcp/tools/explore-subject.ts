import { z } from 'zod';
import { enumField, typeError } from '../../../domain/memory/schemas.ts';
import { SUBJECT_KIND_CODES, SUBJECT_KINDS } from '../../../domain/subjects/kinds.ts';
import { defineOperation, runOperation } from '../../graphql/fixed-operation.ts';
import type { ToolSpec } from '../tool.ts';
import { cursorArg, pageOf, pageSchema, pageSizeArg, PAGE_FIELDS, type Connection } from './paging.ts';
import {
  REPORT_FRAGMENT,
  REPORTS_PAGE,
  reportItemSchema,
  shapeReportItem,
  subjectRefSchema,
  type ReportNode,
} from './report-item.ts';

/** The analyst graph's `subject(kind, key)` walked one hop in every direction, read through the workspace-scoped resolvers. */
const operation = defineOperation(
  'exploreSubject',
  /* GraphQL */ `
  ${REPORT_FRAGMENT}
  query ExploreSubject($kind: SubjectKind!, $key: String!, $first: Int!, $reportsAfter: String, $mentionsAfter: String, $ratingsAfter: String) {
    subject(kind: $kind, key: $key) {
      kind key createdAt
      reports(first: $first, after: $reportsAfter) { ${REPORTS_PAGE} }
      mentions(first: $first, after: $mentionsAfter) { ${PAGE_FIELDS} nodes { role report { ...McpReport } } }
      ratings(first: $first, after: $ratingsAfter) { ${PAGE_FIELDS} nodes { rating note createdAt } }
      relatedSubjects { roles sharedReports subject { kind key } }
    }
  }`,
);

const input = z.strictObject(
  {
    kind: enumField(SUBJECT_KIND_CODES).meta({
      description: SUBJECT_KINDS.map((k) => `${k.code}: ${k.meaning}`).join('\n'),
    }),
    key: z
      .string({ error: typeError('a string') })
      .meta({ description: 'The identifier, normalised by kind as on write (e.g. AS13335 → 13335).' }),
    first: pageSizeArg(50, 10, 'Items per list'),
    reportsAfter: cursorArg('Next page of `reports`: its next_cursor from an earlier answer.'),
    mentionsAfter: cursorArg('Next page of `mentions`: its next_cursor from an earlier answer.'),
    ratingsAfter: cursorArg('Next page of `ratings`: its next_cursor from an earlier answer.'),
  },
  { error: typeError('a JSON object') },
);

type Data = {
  subject: null | {
    kind: string;
    key: string;
    createdAt: string;
    reports: Connection<ReportNode>;
    mentions: Connection<{ role: string; report: ReportNode }>;
    ratings: Connection<{ rating: number; note: string; createdAt: string }>;
    relatedSubjects: Array<{ roles: string[]; sharedReports: number; subject: { kind: string; key: string } }>;
  };
};

const EMPTY = { totalCount: 0, pageInfo: { hasNextPage: false, endCursor: null }, nodes: [] };
const str = { type: 'string' };

export const exploreSubject: ToolSpec<z.output<typeof input>> = {
  name: 'explore_subject',
  title: 'Explore a subject in the workspace memory',
  description:
    'Everything your workspace recorded about one subject (an IP address, domain, URL, e-mail address, account, ...), as the ' +
    "GraphQL analyst graph's subject(kind, key): the reports about it, the reports that name it as a related subject (mentions, with " +
    'the role it played), its ratings (IP addresses), and the other subjects it shares reports with (most shared first, at most 50). ' +
    "Lists are newest first and paged: pass a list's next_cursor back as reports_after, mentions_after or ratings_after. Only your " +
    "workspace's own records are visible. found is false when the workspace never mentioned the subject. Free, read-only.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input,
  output: {
    type: 'object',
    required: ['ok', 'query', 'found', 'subject', 'reports', 'mentions', 'ratings', 'related_subjects'],
    properties: {
      ok: { const: true },
      query: subjectRefSchema,
      found: { type: 'boolean' },
      subject: {
        type: ['object', 'null'],
        properties: { kind: str, key: str, created_at: { type: 'string', format: 'date-time' } },
      },
      reports: pageSchema(reportItemSchema),
      mentions: pageSchema({ type: 'object', properties: { role: str, report: reportItemSchema } }),
      ratings: pageSchema({
        type: 'object',
        properties: {
          rating: { type: 'integer', enum: [-1, 0, 1] },
          note: str,
          created_at: { type: 'string', format: 'date-time' },
        },
      }),
      related_subjects: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            kind: str,
            key: str,
            roles: { type: 'array', items: str },
            shared_reports: { type: 'integer' },
          },
        },
      },
    },
  },
  async run(args, ctx) {
    const { subject: s } = await runOperation<Data>(operation, args, ctx);
    return {
      ok: true,
      query: { kind: args.kind, key: args.key },
      found: s !== null,
      subject: s && { kind: s.kind, key: s.key, created_at: s.createdAt },
      reports: pageOf(s?.reports ?? EMPTY, shapeReportItem),
      mentions: pageOf(s?.mentions ?? EMPTY, (m) => ({ role: m.role, report: shapeReportItem(m.report) })),
      ratings: pageOf(s?.ratings ?? EMPTY, (r) => ({ rating: r.rating, note: r.note, created_at: r.createdAt })),
      related_subjects: (s?.relatedSubjects ?? []).map((r) => ({
        kind: r.subject.kind,
        key: r.subject.key,
        roles: r.roles,
        shared_reports: r.sharedReports,
      })),
    };
  },
};
