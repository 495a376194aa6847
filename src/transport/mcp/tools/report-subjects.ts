import type { BulkLine } from '../../../domain/memory/report-bulk.ts';
import { REPORT_SUBJECTS_MAX, bulkLineSchema, reportBulk } from '../../operations/report-bulk.ts';
import type { ToolSpec } from '../tool.ts';
import { operationTool } from './operation-tool.ts';

/** report_subjects: the operation of POST /risk_api/report/bulk/ for a list (each item a report_subject's arguments, with its own idempotency_key). */
export const reportSubjects: ToolSpec<BulkLine[]> = operationTool(reportBulk, {
  name: 'report_subjects',
  title: 'Report outcomes about many subjects',
  description:
    `Records up to ${REPORT_SUBJECTS_MAX} typed outcome events in one call, as POST /risk_api/report/bulk/: \`reports\` is a list ` +
    "whose items each take report_subject's arguments (kind, key, outcome_code, severity, tags, related_subjects, ...) plus an optional " +
    'idempotency_key of their own. Each item is checked and stored alone: the answer lists, per item (line = its 1-based position), ' +
    'created or replayed with the report id, or its error with the same details report_subject would give. The call is also bounded by ' +
    "the server's request size (64 KB by default: a few hundred reports); split longer lists. Free: never counted.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  // The list is advertised with its items' schema; the input checks it as a list, each item alone when written.
  inputJsonSchema: {
    type: 'object',
    required: ['reports'],
    additionalProperties: false,
    properties: {
      reports: {
        type: 'array',
        minItems: 1,
        maxItems: REPORT_SUBJECTS_MAX,
        items: bulkLineSchema(),
        description: 'The reports, each with an optional idempotency_key.',
      },
    },
  },
});
