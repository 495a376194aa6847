import { z } from 'zod';
import { AppError } from '../../../errors.ts';
import { typeError } from '../../../domain/memory/schemas.ts';
import { writeReportLines } from '../../../domain/memory/report-bulk.ts';
import { viewerOf } from '../../http/request-context.ts';
import { toAppError } from '../../http/errors.ts';
import { checkLine, shapeBulk } from '../../rest/bulk/route.ts';
import { bulkLineSchema, bulkReportResponse } from '../../rest/openapi-schemas.ts';
import type { ToolSpec } from '../tool.ts';

/**
 * Reports per call: an agent's list travels in one JSON-RPC message, so it stays far below the REST body's 10,000.
 * The message is also bounded by MAX_BODY_BYTES (64 KB by default, as every MCP and GraphQL request): at the
 * default, a few hundred typical reports per call; operators who want the full 1,000 raise it.
 */
export const REPORT_SUBJECTS_MAX = 1_000;

/** The list is checked as a list here; each report is checked alone when it is written (checkLine), so one bad item refuses only itself. */
const input = z.strictObject({
  reports: z.array(z.unknown(), { error: typeError('an array of reports') })
    .min(1, { error: 'must hold at least one report' })
    .max(REPORT_SUBJECTS_MAX, { error: `must hold at most ${REPORT_SUBJECTS_MAX} reports` }),
}, { error: typeError('a JSON object') });

function asReport(item: unknown): Record<string, unknown> {
  if (typeof item === 'object' && item !== null && !Array.isArray(item)) return item as Record<string, unknown>;
  throw new AppError('invalid_request', 'This item must be a report object.', [{ field: '(item)', message: 'must be a JSON object' }]);
}

/** report_subjects: POST /risk_api/report/bulk/ for a list (each item a report_subject's arguments, with its own idempotency_key). */
export const reportSubjects: ToolSpec<z.output<typeof input>> = {
  name: 'report_subjects',
  title: 'Report outcomes about many subjects',
  description: `Records up to ${REPORT_SUBJECTS_MAX} typed outcome events in one call, as POST /risk_api/report/bulk/: \`reports\` is a list `
    + 'whose items each take report_subject\'s arguments (kind, key, outcome_code, severity, tags, related_subjects, ...) plus an optional '
    + 'idempotency_key of their own. Each item is checked and stored alone: the answer lists, per item (line = its 1-based position), '
    + 'created or replayed with the report id, or its error with the same details report_subject would give. The call is also bounded by '
    + 'the server\'s request size (64 KB by default: a few hundred reports); split longer lists. Free: never counted.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input,
  inputJsonSchema: {
    type: 'object', required: ['reports'], additionalProperties: false,
    properties: { reports: { type: 'array', minItems: 1, maxItems: REPORT_SUBJECTS_MAX, items: bulkLineSchema(), description: 'The reports, each with an optional idempotency_key.' } },
  },
  output: bulkReportResponse,
  async run(args, ctx) {
    const viewer = viewerOf(ctx);
    // parseArguments renamed every key of the list already, as REST renames a body
    const lines = args.reports.map((item, i) => ({ line: i + 1, check: () => checkLine(asReport(item)) }));
    return shapeBulk(await writeReportLines(ctx.services, viewer, lines, (e) => toAppError(e, ctx.requestId, ctx.services.log)));
  },
};
