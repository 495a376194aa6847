import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { AppError } from '../../errors.ts';
import { camelToSnakePath } from '../../domain/validation.ts';
import {
  REPORT_ORDER,
  afterPosition,
  parseReportFilter,
  reportFilterSchema,
  reportWhere,
} from '../../domain/analyst/report-filter.ts';
import { workspaceDb } from '../../domain/workspace/scope.ts';
import { currentWork } from '../../platform/work-budget.ts';
import { viewerOf } from '../http/request-context.ts';
import { bodySchema, exportRecord } from './schemas.ts';
import {
  CSV_HEADER,
  EXPORT_SELECT,
  decodeExportCursor,
  encodeExportCursor,
  toCsvLine,
  toRecord,
  type ExportRow,
} from './report-export-format.ts';
import { exportCsvExample, exportRecordExample } from './report-export-examples.ts';
import { defineStream } from './stream.ts';

/**
 * GET or POST /risk_api/export/: the workspace's reports with the `reports` connection's filters, streamed as NDJSON
 * or CSV, newest first. Not counted on a quota (its reads are metered as work, up to EXPORT_MAX_MS). At most
 * EXPORT_MAX_ROWS rows per request; when more match, `X-Next-Cursor` (and a Link rel="next" for GET) continues after
 * the last row sent. Reads go through the same workspace-scoped client as the GraphQL graph.
 */
export const EXPORT_MAX_ROWS = 100_000;
/** An export's ceiling: longer than a query's, since it streams up to EXPORT_MAX_ROWS rows to a client that may read slowly. */
export const EXPORT_MAX_MS = 120_000;
const BATCH = 1000;
const LIST_FIELDS = new Set(['kind', 'outcomeCode', 'severity', 'sharePolicy', 'namespace', 'tags']);
const CONTROL = new Set(['format', 'limit', 'cursor']);

type Position = { createdAt: Date; id: number };
type ExportRequest = {
  params: Record<string, unknown>;
  format: 'ndjson' | 'csv';
  limit: number;
  after: Position | null;
};

/** GET: `?outcome_code=spam,fraud_watch&from=...&format=csv`, lists comma-separated. */
function exportQuery(params: URLSearchParams): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const [k, v] of params) {
    const key = k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
    raw[key] = LIST_FIELDS.has(key) ? v.split(',').map((s) => s.trim()) : v;
  }
  return raw;
}

/** The request's fields (a POST's JSON body, or a GET's query): the report filter and the answer's format and size. */
function readRequest(raw: Record<string, unknown>): ExportRequest {
  const format = raw.format ?? 'ndjson';
  if (format !== 'ndjson' && format !== 'csv')
    throw new AppError('invalid_request', 'format must be ndjson or csv.', [
      { field: 'format', message: 'must be ndjson or csv' },
    ]);
  // Only numbers and strings are converted: Number() of an object calls its toString (a JSON body's may be anything).
  const limit =
    raw.limit === undefined
      ? EXPORT_MAX_ROWS
      : typeof raw.limit === 'number' || typeof raw.limit === 'string'
        ? Number(raw.limit)
        : NaN;
  if (!Number.isInteger(limit) || limit < 1 || limit > EXPORT_MAX_ROWS) {
    throw new AppError('invalid_request', `limit must be 1-${EXPORT_MAX_ROWS}.`, [
      { field: 'limit', message: `must be 1-${EXPORT_MAX_ROWS}` },
    ]);
  }
  const after = typeof raw.cursor === 'string' ? decodeExportCursor(raw.cursor) : null;
  if (raw.cursor !== undefined && !after)
    throw new AppError('invalid_request', 'cursor is not one this API returned.', [
      { field: 'cursor', message: 'invalid cursor' },
    ]);
  const params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (CONTROL.has(k)) continue;
    params[k] = (k === 'from' || k === 'to') && typeof v === 'string' ? dateOf(v, k) : v;
  }
  return { params, format, limit, after };
}

function dateOf(value: string, field: string): Date {
  const d = new Date(value);
  if (Number.isNaN(d.getTime()))
    throw new AppError('invalid_request', `${field} must be an ISO 8601 timestamp.`, [
      { field, message: 'not a timestamp' },
    ]);
  return d;
}

/** The export's request as the document states it: the graph's report filter, its instants as strings, and the answer's controls. */
function exportRequestSchema() {
  const filter = bodySchema(reportFilterSchema);
  const instant = (description: unknown) => ({ type: 'string', format: 'date-time', description });
  return {
    ...filter,
    required: [],
    properties: {
      ...filter.properties,
      from: instant(filter.properties.from?.description),
      to: instant(filter.properties.to?.description),
      format: {
        type: 'string',
        enum: ['ndjson', 'csv'],
        default: 'ndjson',
        description: 'ndjson: one JSON object per line; csv: RFC 4180 with a header line.',
      },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: EXPORT_MAX_ROWS,
        default: EXPORT_MAX_ROWS,
        description: 'Most reports in this answer.',
      },
      cursor: { type: 'string', description: 'X-Next-Cursor of the previous answer: continue after its last report.' },
    },
  };
}

export const reportExport = defineStream({
  path: '/risk_api/export',
  read: readRequest,
  query: exportQuery,
  maxMs: EXPORT_MAX_MS,
  write: async (request, ctx, { res, log, next }) => {
    const filter = parseReportFilter(request.params, camelToSnakePath);
    const db = workspaceDb(ctx.prisma, viewerOf(ctx).workspaceId);
    const base = reportWhere(filter);
    const where = (after: Position | null) =>
      after ? { AND: [base, afterPosition(after.createdAt, after.id)] } : base;

    // The last row this request may send, found before streaming so the continuation can be a header.
    const edge = await db.report.findMany({
      where: where(request.after),
      orderBy: REPORT_ORDER,
      skip: request.limit - 1,
      take: 2,
      select: { id: true, createdAt: true },
    });
    const last = edge.length === 2 ? edge[0]! : null;
    const headers: Record<string, string> = {
      'content-type': request.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      'content-disposition': `attachment; filename="reports.${request.format}"`,
      'cache-control': 'no-store',
      'x-request-id': ctx.requestId,
    };
    if (last) {
      const cursor = encodeExportCursor(last.createdAt, last.id);
      headers['x-next-cursor'] = cursor;
      const link = next(cursor);
      if (link) headers.link = `<${link}>; rel="next"`;
    }
    res.writeHead(200, headers);
    try {
      await stream(
        res,
        request,
        last,
        (after) =>
          db.report.findMany({
            where: where(after),
            orderBy: REPORT_ORDER,
            take: BATCH,
            select: EXPORT_SELECT,
          }) as Promise<ExportRow[]>,
      );
    } catch (e) {
      // Headers are gone: the only honest signal left is an aborted (incomplete) response. Work ended by its
      // ceiling or by the client hanging up is not a failure of ours.
      const ended = currentWork()?.endedBy;
      if (ended) log.warn('export stopped mid-stream', { requestId: ctx.requestId, reason: ended.message });
      else log.error('export failed mid-stream', { requestId: ctx.requestId, err: e });
      res.destroy(e as Error);
    }
  },
  doc: {
    tag: 'Export',
    get: { operationId: 'exportReports', summary: "Export the workspace's reports (filters in the query)" },
    post: { operationId: 'exportReportsPost', summary: "Export the workspace's reports (filters in a JSON body)" },
    description:
      "The workspace's reports with the GraphQL `reports(filter)` filters, newest first, streamed as NDJSON (one record per " +
      `line, each as the ExportRecord schema) or CSV (the same columns flattened; tags joined by ";", related_subjects as JSON). At most ${EXPORT_MAX_ROWS} ` +
      'reports per answer; when more match, X-Next-Cursor (and for GET a Link rel="next") continues after the last one sent. Unmetered.',
    request: {
      schema: 'ExportRequest',
      jsonSchema: exportRequestSchema(),
      example: { outcome_code: ['fraud_watch', 'spam'], from: '2026-11-01T00:00:00Z', format: 'csv' },
    },
    response: {
      description:
        'The reports. application/x-ndjson: one ExportRecord per line; text/csv: a header line, then one line per report.',
      content: {
        'application/x-ndjson': { schema: 'ExportRecord', example: exportRecordExample },
        'text/csv': { schema: { type: 'string' }, example: exportCsvExample },
      },
    },
    schemas: { ExportRecord: exportRecord },
  },
});

async function stream(
  res: ServerResponse,
  request: ExportRequest,
  last: Position | null,
  page: (after: Position | null) => Promise<ExportRow[]>,
) {
  if (request.format === 'csv') res.write(CSV_HEADER);

  // Keyset batches up to and including `last`: rows stored meanwhile never shift what is sent.
  let after = request.after;
  for (;;) {
    const rows = await page(after);
    let done = rows.length < BATCH;
    let chunk = '';
    for (const r of rows) {
      chunk += request.format === 'csv' ? toCsvLine(r) : `${JSON.stringify(toRecord(r))}\n`;
      if (last && r.id === last.id) {
        done = true;
        break;
      }
    }
    if (res.destroyed) return;
    if (!res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    const tail = rows.at(-1);
    if (done || !tail) break;
    after = { createdAt: tail.createdAt, id: tail.id };
  }
  res.end();
}
