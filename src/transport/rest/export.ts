import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import { AppError } from '../../errors.ts';
import { apiKeyHeaders, requireApiKey, verifiedViewer } from '../http/api-key.ts';
import { readJsonObject } from '../http/body.ts';
import { camelToSnakePath, snakeToCamelKeys } from '../../domain/validation.ts';
import { REPORT_ORDER, afterPosition, parseReportFilter } from '../../domain/analyst/report-filter.ts';
import { reportWhere } from '../../domain/analyst/report-filter.ts';
import { workspaceDb } from '../../domain/workspace/scope.ts';
import type { ApiDeps } from '../http/request-context.ts';
import { notesOf } from '../http/request-notes.ts';
import { EXECUTION_CEILINGS, endAtDeadline, requestWork } from '../graphql/ceilings.ts';
import { currentWork, runAsWork } from '../../platform/work-budget.ts';
import {
  CSV_HEADER,
  EXPORT_SELECT,
  decodeExportCursor,
  encodeExportCursor,
  toCsvLine,
  toRecord,
  type ExportRow,
} from './export-format.ts';

/**
 * GET or POST /risk_api/export/: the workspace's reports with the `reports` connection's
 * filters, streamed as NDJSON or CSV, newest first. Not counted on a quota (its reads are metered
 * as work, below). At most EXPORT_MAX_ROWS rows per request; when more match, `X-Next-Cursor`
 * (and a Link rel="next" for GET) continues after the last row sent. Reads go through the same
 * workspace-scoped client as the GraphQL graph.
 */
export const EXPORT_MAX_ROWS = 100_000;
/** An export's ceiling: longer than a query's, since it streams up to EXPORT_MAX_ROWS rows to a client that may read slowly. */
export const EXPORT_MAX_MS = 120_000;
const BATCH = 1000;
const LIST_FIELDS = new Set(['kind', 'outcomeCode', 'severity', 'sharePolicy', 'namespace', 'tags']);
const CONTROL = new Set(['format', 'limit', 'cursor']);

type ExportRequest = {
  params: Record<string, unknown>;
  format: 'ndjson' | 'csv';
  limit: number;
  after: { createdAt: Date; id: number } | null;
};

/** GET: `?outcome_code=spam,fraud_watch&from=...&format=csv`; POST: the same keys in a JSON body, lists as arrays. */
async function readRequest(req: IncomingMessage, deps: ApiDeps): Promise<ExportRequest> {
  let raw: Record<string, unknown>;
  if (req.method === 'POST') {
    raw = snakeToCamelKeys(await readJsonObject(req, deps.config.maxBodyBytes)) as Record<string, unknown>;
  } else {
    const url = new URL(req.url ?? '/', 'http://localhost');
    raw = {};
    for (const [k, v] of url.searchParams) {
      const key = k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
      raw[key] = LIST_FIELDS.has(key) ? v.split(',').map((s) => s.trim()) : v;
    }
  }
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

export async function handleExport(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  deps: ApiDeps,
): Promise<void> {
  // Metered like every request (graphql/ceilings.ts): rows read are charged, the reads before the headers are
  // refused with a coded answer past the budget or EXPORT_MAX_MS; a client gone mid-stream ends the work, so the
  // next batch is never read.
  const work = requestWork({ ...EXECUTION_CEILINGS, maxMs: EXPORT_MAX_MS }, false, notesOf(req).arrivedAt);
  res.once('close', () => work.end(CLIENT_GONE));
  const timer = endAtDeadline(work, { ...EXECUTION_CEILINGS, maxMs: EXPORT_MAX_MS }, false);
  try {
    await runAsWork(work, () => exportReports(req, res, requestId, deps));
  } catch (e) {
    // A read refused by the meter reaches here wrapped by Prisma: the answer is the request's own refusal.
    throw work.endedBy && work.endedBy !== CLIENT_GONE ? work.endedBy : e;
  } finally {
    clearTimeout(timer);
  }
}

/** Why an export's work ends when its client hung up: nobody reads what it would send. */
const CLIENT_GONE = new AppError('query_timeout', 'The client closed the connection.');

async function exportReports(req: IncomingMessage, res: ServerResponse, requestId: string, deps: ApiDeps) {
  const viewer = await verifiedViewer(deps.verifier, req, requireApiKey(...apiKeyHeaders(req)));
  const request = await readRequest(req, deps);
  const filter = parseReportFilter(request.params, camelToSnakePath);
  const db = workspaceDb(deps.services.prisma, viewer.workspaceId);
  const base = reportWhere(filter);
  const where = (after: { createdAt: Date; id: number } | null) =>
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
    'x-request-id': requestId,
  };
  if (last) {
    const next = encodeExportCursor(last.createdAt, last.id);
    headers['x-next-cursor'] = next;
    if (req.method === 'GET') {
      const url = new URL(req.url ?? '/', deps.config.baseUrl);
      url.searchParams.set('cursor', next);
      headers.link = `<${url.pathname}${url.search}>; rel="next"`;
    }
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
    if (ended) deps.log.warn('export stopped mid-stream', { requestId, reason: ended.message });
    else deps.log.error('export failed mid-stream', { requestId, err: e });
    res.destroy(e as Error);
  }
}

type Position = { createdAt: Date; id: number };

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
