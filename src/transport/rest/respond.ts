import type { ServerResponse } from 'node:http';
import { AppError, isAppError } from '../../errors.ts';
import type { Logger } from '../../platform/log.ts';
import { errorFields } from '../../platform/log.ts';
import { ClientDisconnected } from '../http/body.ts';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../../platform/db/unavailable.ts';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * Renders any thrown value as the REST error body. Expected failures are AppErrors and
 * keep their code; anything else is logged with the request id and answered as a bare
 * internal_error, so internals never leak.
 */
export function sendError(res: ServerResponse, e: unknown, requestId: string, log: Logger, headers: Record<string, string> = {}) {
  if (e instanceof ClientDisconnected) {
    log.debug(e.message, { requestId, method: res.req.method, path: res.req.url?.split('?', 1)[0] });
    res.destroy();
    return;
  }
  const error = asAppError(e, requestId, log);
  const extra: Record<string, string> = { ...error.headers, ...headers };
  if (error.code === 'payload_too_large') extra.connection = 'close'; // the rest of the body is not read
  if (res.headersSent) { res.destroy(); return; }
  sendJson(res, error.status, error.toBody(), extra);
}

/**
 * Any thrown value as an AppError: expected failures keep their code; anything else is logged with the
 * request id and becomes a bare internal_error (or database_unavailable), so internals never leak.
 */
export function asAppError(e: unknown, requestId: string, log: Logger): AppError {
  if (isAppError(e)) return e;
  const error = isDatabaseUnavailable(e) ? databaseUnavailable(requestId)
    : new AppError('internal_error', `Something went wrong on our side. Quote request id ${requestId} when you contact support.`, undefined, { request_id: requestId });
  log.error(error.code === 'database_unavailable' ? 'database unavailable' : 'unhandled error', { requestId, ...errorFields(e) });
  return error;
}

/**
 * The database dropped or refused the connection mid-request (restart, failover). A write that got
 * this answer was not acknowledged: retry it with the same Idempotency-Key, which stores it exactly once
 * (in the rare case the commit itself went through just before the drop, the retry answers the stored write).
 */
function databaseUnavailable(requestId: string): AppError {
  return new AppError('database_unavailable', DATABASE_UNAVAILABLE_MESSAGE, undefined, { request_id: requestId }, { 'retry-after': '1' });
}
