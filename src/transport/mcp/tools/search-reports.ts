import { z } from 'zod';
import { typeError } from '../../../domain/memory/schemas.ts';
import { parseReportFilter, reportFilterSchema } from '../../../domain/analyst/report-filter.ts';
import { camelToSnakePath } from '../../../domain/validation.ts';
import { defineOperation, runOperation } from '../../graphql/fixed-operation.ts';
import type { ToolSpec } from '../tool.ts';
import { cursorArg, pageOf, pageSchema, pageSizeArg, type Connection } from './paging.ts';
import { REPORT_FRAGMENT, REPORTS_PAGE, reportItemSchema, shapeReportItem, type ReportNode } from './report-item.ts';

/** The analyst graph's `reports(filter)` connection: the same filter rule as GraphQL and the REST export. */
const operation = defineOperation(
  'searchReports',
  /* GraphQL */ `
  ${REPORT_FRAGMENT}
  query SearchReports($filter: ReportFilter, $first: Int!, $after: String) {
    reports(filter: $filter, first: $first, after: $after) { ${REPORTS_PAGE} }
  }`,
);

/** Instants travel as text, read as GraphQL's DateTime reads them; the domain filter then checks their range and order. */
const instant = (description: string) =>
  z
    .string({ error: typeError('a string') })
    .check((ctx) => {
      if (Number.isNaN(Date.parse(ctx.value)))
        ctx.issues.push({
          code: 'custom',
          input: ctx.value,
          message: 'must be an ISO 8601 timestamp, e.g. 2026-11-23T10:04:00Z',
        });
    })
    .optional()
    .meta({ description });

const filters = z
  .strictObject(
    {
      ...reportFilterSchema.shape,
      from: instant('Stored at or after this instant.'),
      to: instant('Stored before this instant.'),
    },
    { error: typeError('an object') },
  )
  .meta({
    description:
      'Which reports: every list means "any of" (tags: "all of"); fields combine with AND. All reports when omitted.',
  });

const input = z.strictObject(
  {
    filters: filters.optional(),
    first: pageSizeArg(100, 20, 'Reports per page'),
    cursor: cursorArg('The next page: next_cursor from an earlier answer with the same filters.'),
  },
  { error: typeError('a JSON object') },
);
type Input = z.output<typeof input>;

export const searchReports: ToolSpec<Input> = {
  name: 'search_reports',
  title: "Search the workspace's reports",
  description:
    "Lists your workspace's reports, newest first, as the GraphQL analyst graph's reports(filter) and the REST export: " +
    'filters by subject kind, outcome_code, severity, share_policy, namespace, tags (all of), a time window (from inclusive, to ' +
    'exclusive) and text in the title or summary. Paged: pass next_cursor back as cursor (with the same filters); reports stored ' +
    "meanwhile never shift or repeat items. Only your workspace's reports are visible. Free, read-only.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input,
  output: {
    type: 'object',
    required: ['ok', 'reports'],
    properties: { ok: { const: true }, reports: pageSchema(reportItemSchema) },
  },
  async run(args, ctx) {
    const given = args.filters ?? {};
    // The domain's rules over the whole filter (instants in years 1-9999, from before to), named as the caller named them.
    parseReportFilter(
      { ...given, from: given.from && new Date(given.from), to: given.to && new Date(given.to) },
      (f) => `filters.${camelToSnakePath(f)}`,
      'The arguments of search_reports are invalid',
    );
    const data = await runOperation<{ reports: Connection<ReportNode> }>(
      operation,
      { filter: given, first: args.first, after: args.cursor },
      ctx,
    );
    return { ok: true, reports: pageOf(data.reports, shapeReportItem) };
  },
};
