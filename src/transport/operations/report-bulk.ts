import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { IDEMPOTENCY_KEY, IDEMPOTENCY_TTL_HOURS } from '../../domain/memory/idempotency.ts';
import { REPORT_FIELD_NAMES, reportInputSchema, typeError } from '../../domain/memory/schemas.ts';
import {
  BULK_CHUNK_SIZE,
  writeReportLines,
  type BulkLine,
  type BulkResult,
  type CheckedLine,
} from '../../domain/memory/report-bulk.ts';
import { toAppError } from '../http/errors.ts';
import { viewerOf } from '../http/request-context.ts';
import { bodySchema, count, freeQuota, object, str } from './schemas.ts';
import { FREE } from './examples.ts';
import { wireInput } from './input.ts';
import { defineOperation } from './operation.ts';
import { oneOfBy, same } from './wire.ts';

/** A REST bulk body's bounds: checked while it streams in, before any line is parsed (rest/bulk/body.ts). */
export const BULK_MAX_BYTES = 5 * 1024 * 1024;
export const BULK_MAX_LINES = 10_000;
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** A CSV body's columns: the report's fields in wire names, and the line's idempotency key. */
export const CSV_COLUMNS = [...REPORT_FIELD_NAMES.map(snake), 'idempotency_key'];
/**
 * Reports per MCP call: an agent's list travels in one JSON-RPC message, so it stays far below the REST body's
 * 10,000. The message is also bounded by MAX_BODY_BYTES (64 KB by default, as every MCP and GraphQL request): at the
 * default, a few hundred typical reports per call; operators who want the full 1,000 raise it.
 */
export const REPORT_SUBJECTS_MAX = 1_000;

/**
 * One line of a bulk report (a body's line, an MCP list item), its wire names already renamed (snakeToCamelKeys,
 * as every REST body is): the single `report`'s body plus an optional idempotency key, checked by `report`'s
 * schema exactly as a REST body is (same details in wire names, same messages).
 */
export function checkLine(fields: Record<string, unknown>): CheckedLine {
  const { idempotencyKey: key, ...report } = fields;
  const keyProblem =
    key === undefined || key === null || (typeof key === 'string' && IDEMPOTENCY_KEY.test(key))
      ? []
      : [{ field: 'idempotency_key', message: 'must be 1-255 printable ASCII characters' }];
  const input = wireInput(reportInputSchema, report, 'The report on this line is invalid', keyProblem);
  return { input, idempotencyKey: (key as string | null | undefined) ?? undefined };
}

function asReport(item: unknown): Record<string, unknown> {
  if (typeof item === 'object' && item !== null && !Array.isArray(item)) return item as Record<string, unknown>;
  throw new AppError('invalid_request', 'This item must be a report object.', [
    { field: '(item)', message: 'must be a JSON object' },
  ]);
}

/**
 * The lines as a list (MCP's report_subjects; REST reads NDJSON or CSV into the same lines instead, rest/bulk/).
 * The list is checked as a list here; each report is checked alone when it is written (checkLine), so one bad
 * item refuses only itself.
 */
const reportList = z
  .strictObject(
    {
      reports: z
        .array(z.unknown(), { error: typeError('an array of reports') })
        .min(1, { error: 'must hold at least one report' })
        .max(REPORT_SUBJECTS_MAX, { error: `must hold at most ${REPORT_SUBJECTS_MAX} reports` }),
    },
    { error: typeError('a JSON object') },
  )
  .transform(({ reports }): BulkLine[] =>
    reports.map((item, i) => ({ line: i + 1, check: () => checkLine(asReport(item)) })),
  );

/** A line of a bulk report (an NDJSON line, an MCP list item): `report`'s body and its own idempotency key. */
export function bulkLineSchema() {
  const report = bodySchema(reportInputSchema);
  return {
    ...report,
    description:
      'One report of a bulk request: a `report` body (the same fields, rules and messages) with an optional idempotency_key.',
    properties: {
      ...report.properties,
      idempotency_key: {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        pattern: '^[\\x21-\\x7e]+$',
        description: `This report's Idempotency-Key (kept ${IDEMPOTENCY_TTL_HOURS} hours, shared with \`report\`): the same key with the same report is replayed, with another report refused for this line alone.`,
      },
    },
  };
}

/** The codes a bulk report answers a line with: the line's own refusal, or its chunk's failure to write. */
export const BULK_LINE_ERRORS = [
  'invalid_json',
  'invalid_request',
  'idempotency_key_reused',
  'database_unavailable',
  'internal_error',
] as const;

const bulkReportResponse = object({
  ok: { const: true },
  endpoint: { const: 'report_bulk' },
  quota: same(freeQuota),
  chunk_size: {
    type: 'integer',
    minimum: 1,
    description: 'Lines stored per transaction: a failed chunk stored none of its lines.',
  },
  totals: object(
    { lines: count, created: count, replayed: count, errors: count },
    { description: 'Results by status; lines = created + replayed + errors.' },
  ),
  results: {
    type: 'array',
    description: 'One result per report, in body order.',
    items: oneOfBy((r: BulkResult) => (r.status === 'error' ? 1 : 0), {
      oneOf: [
        object({
          line: {
            type: 'integer',
            minimum: 1,
            description:
              'The line the report starts on (1-based; a CSV header is line 1), or its position in a list (1-based).',
          },
          status: {
            type: 'string',
            enum: ['created', 'replayed'],
            description:
              'created: stored now; replayed: its idempotency_key matched an earlier write of the same report, nothing was written.',
          },
          id: { type: 'integer', minimum: 1, description: "The report's id (the first write's, for a replay)." },
        }),
        object({
          line: { type: 'integer', minimum: 1 },
          status: { const: 'error' },
          error: {
            type: 'string',
            enum: [...BULK_LINE_ERRORS],
            description:
              'invalid_json / invalid_request: this line, as `report` would refuse its body; idempotency_key_reused: its key was used with another report; database_unavailable / internal_error: its chunk could not be written (nothing of it was), resend the line.',
          },
          message: str,
          details: {
            type: 'array',
            description:
              "The invalid fields, named as in `report`'s errors (empty when the line is not JSON or its chunk failed).",
            items: object({ field: str, message: str }),
          },
        }),
      ],
    }),
  },
});

/** One line of a bulk NDJSON body (the schema of application/x-ndjson is a line's, as for the export). */
const bulkNdjsonExample = {
  kind: 'ipaddress',
  key: '198.51.100.7',
  outcome_code: 'fraud_watch',
  severity: 'high',
  tags: ['carding'],
  idempotency_key: 'batch-7-line-1',
};
const bulkCsvExample =
  'kind,key,outcome_code,severity,tags,related_subjects,idempotency_key\r\n' +
  'ipaddress,198.51.100.7,fraud_watch,high,carding;card-testing,,batch-7-line-1\r\n' +
  'email,mule@example.com,chargeback,,,"[{""kind"":""ipaddress"",""key"":""2001:db8::7"",""role"":""source_ip""}]",\r\n' +
  'ipaddress,999.1.1.1,spam,,,,\r\n';
const bulkExample = {
  ok: true,
  endpoint: 'report_bulk',
  quota: FREE,
  chunk_size: 500,
  totals: { lines: 3, created: 2, replayed: 0, errors: 1 },
  results: [
    { line: 1, status: 'created', id: 4711 },
    { line: 2, status: 'created', id: 4712 },
    {
      line: 3,
      status: 'error',
      error: 'invalid_request',
      message: 'The report on this line is invalid: check key.',
      details: [{ field: 'key', message: 'must be a valid IPv4 or IPv6 address (kind ipaddress)' }],
    },
  ],
};

/**
 * POST /risk_api/report/bulk/ and the MCP tool report_subjects: many reports, each judged and stored alone (free).
 * REST reads its NDJSON or CSV body into the lines (rest/bulk/); MCP gives them as a list.
 */
export const reportBulk = defineOperation({
  name: 'report_bulk',
  path: '/risk_api/report/bulk',
  input: reportList,
  resolve: (lines, ctx) =>
    writeReportLines(ctx.services, viewerOf(ctx), lines, (e) => toAppError(e, ctx.requestId, ctx.services.log)),
  output: bulkReportResponse,
  metering: 'free',
  doc: {
    tag: 'Memory',
    operationId: 'reportBulk',
    summary: 'Record many outcome events at once (free)',
    description:
      `Up to ${BULK_MAX_LINES} reports and ${BULK_MAX_BYTES} bytes (5 MB) per request, as NDJSON (one \`report\` body per line, ` +
      'plus an optional `idempotency_key`) or CSV (a header line naming columns among ' +
      `${CSV_COLUMNS.join(', ')}; an empty cell is an absent field, tags are separated by ";", related_subjects is a JSON array as the export writes it). ` +
      "Each line is judged alone by `report`'s rules and answered in `results` (created, replayed, or its error with the same details `report` gives); " +
      `the valid lines are stored in chunks of ${BULK_CHUNK_SIZE.postgres} per transaction on PostgreSQL, ${BULK_CHUNK_SIZE.embedded} on the embedded database (chunk_size). Blank lines are skipped. A body over either bound is refused whole (413) before ` +
      'any line is read. Not the Idempotency-Key header: each line carries its own key. Never counted.',
    request: {
      schema: 'BulkReportLine',
      jsonSchema: bulkLineSchema(),
      example: bulkNdjsonExample,
      // The schema and example are one line's (as for the export's NDJSON); lines are separated by LF or CRLF.
      content: {
        'application/x-ndjson': { schema: 'BulkReportLine', example: bulkNdjsonExample },
        'text/csv': {
          schema: { type: 'string', description: 'RFC 4180 CSV with a header line.' },
          example: bulkCsvExample,
        },
      },
    },
    response: {
      schema: 'BulkReportResponse',
      description: 'Every line answered (stored, replayed or refused alone).',
      example: bulkExample,
    },
    errors: ['invalid_request', 'unsupported_media_type', 'payload_too_large'],
    errorsWhen: {
      invalid_request:
        'the body holds no report, the CSV header names an unknown or repeated column, or an Idempotency-Key header was sent',
      unsupported_media_type: 'Content-Type is neither application/x-ndjson nor text/csv',
      payload_too_large: `the body is over ${BULK_MAX_BYTES} bytes or holds more than ${BULK_MAX_LINES} reports (the message names which)`,
    },
  },
});
