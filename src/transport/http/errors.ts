import type { ServerResponse } from 'node:http';
import { GraphQLError } from 'graphql';
import { PothosValidationError } from '@pothos/core';
import { AppError, ERRORS, internalError, isAppError } from '../../errors.ts';
import type { Logger } from '../../platform/log.ts';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.ts';
import { ClientDisconnected } from './body.ts';
import { noteRequest } from './request-notes.ts';

/**
 * The one error renderer. Every transport turns what it caught into an AppError here (toAppError) and sends
 * it in its own wire format (sendError): REST's { ok: false, error, message, details? }, GraphQL's
 * { errors: [{ message, extensions: { code } }] }, a JSON-RPC error (MCP), or an HTML page (control plane).
 * Status and headers come from the error (src/errors.ts), so the same failure answers alike everywhere.
 */
export type ErrorFormat = 'json' | 'graphql' | 'jsonrpc' | { html: (error: AppError) => string };

/**
 * Any thrown value as an AppError. Expected failures keep their code; a dropped database connection is
 * database_unavailable (503, Retry-After: 1); anything else is logged with the request id and answered as a bare
 * internal_error that names that id, so internals never leak and the id the client quotes is the one in the log.
 */
export function toAppError(e: unknown, requestId: string, log: Logger): AppError {
  if (isAppError(e)) return e;
  if (isDatabaseUnavailable(e)) {
    log.error('database unavailable', { requestId, err: e });
    return new AppError(
      'database_unavailable',
      undefined,
      undefined,
      { request_id: requestId },
      { 'retry-after': '1' },
    );
  }
  log.error('unhandled error', { requestId, err: e });
  return internalError(requestId);
}

/** JSON-RPC codes of refusals before any message reaches the MCP server; the rest is -32000, the server-defined error. */
const RPC_CODE: Partial<Record<AppError['code'], number>> = { invalid_json: -32700, invalid_request: -32600 };

function render(error: AppError, format: ErrorFormat): { type: string; text: string } {
  if (typeof format === 'object') return { type: 'text/html; charset=utf-8', text: format.html(error) };
  const body =
    format === 'json'
      ? error.toBody()
      : format === 'graphql'
        ? { errors: [{ message: error.message, extensions: graphqlExtensions(error) }] }
        : {
            jsonrpc: '2.0',
            id: null,
            error: { code: RPC_CODE[error.code] ?? -32000, message: error.message, data: error.toBody() },
          };
  return { type: 'application/json; charset=utf-8', text: JSON.stringify(body) };
}

/**
 * Sends the error in the transport's format with its status and headers. A client that hung up mid-request is
 * not an error of ours: logged at debug, the socket closed. After the headers went out, only an aborted
 * response can tell the client something failed.
 */
export function sendError(
  res: ServerResponse,
  e: unknown,
  requestId: string,
  log: Logger,
  format: ErrorFormat = 'json',
  headers: Record<string, string> = {},
) {
  if (e instanceof ClientDisconnected) {
    log.debug(e.message, { requestId, method: res.req.method, path: res.req.url?.split('?', 1)[0] });
    res.destroy();
    return;
  }
  const error = toAppError(e, requestId, log);
  noteRequest(res.req, { error: error.code });
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const { type, text } = render(error, format);
  const extra: Record<string, string> = { ...error.headers, ...headers };
  if (error.code === 'payload_too_large') extra.connection = 'close'; // the rest of the body is not read
  res.writeHead(error.status, { 'content-type': type, 'content-length': String(Buffer.byteLength(text)), ...extra });
  res.end(text);
}

/** An AppError's GraphQL extensions: its code and details, the request id of an internal failure. */
function graphqlExtensions(error: AppError): Record<string, unknown> {
  const requestId = error.extra?.request_id;
  return {
    code: error.code,
    ...(error.details ? { details: error.details } : {}),
    ...(requestId ? { request_id: requestId } : {}),
  };
}

const AUTH_FAILURES = new Set(['missing_api_key', 'invalid_api_key', 'conflicting_api_keys']);

/**
 * A GraphQL server's maskError: resolver and context errors as GraphQL errors with the REST code in
 * `extensions.code`. Unknown failures were made AppErrors with the request id before this (useRequestErrors,
 * below; and each server's context factory), so here they only change shape.
 */
export function graphqlError(error: unknown, log: Logger): GraphQLError {
  const base = error instanceof GraphQLError ? error : undefined;
  const original = base ? (base.originalError ?? base) : error;
  const at = base ? { nodes: base.nodes, source: base.source, positions: base.positions, path: base.path } : {};
  if (isAppError(original)) {
    // An authentication failure sets the HTTP status (401), as REST's does; a refusal's headers (Retry-After) travel too.
    const http = {
      ...(AUTH_FAILURES.has(original.code) ? { status: original.status } : {}),
      ...(original.headers ? { headers: original.headers } : {}),
    };
    return new GraphQLError(original.message, {
      ...at,
      extensions: { ...graphqlExtensions(original), ...(Object.keys(http).length ? { http } : {}) },
    });
  }
  // The relay plugin checks paging arguments itself ("Invalid cursor: x", a negative `first`): the client's input, not our fault.
  if (original instanceof PothosValidationError)
    return new GraphQLError(original.message, { ...at, extensions: { code: 'invalid_request' } });
  // Syntax and validation errors carry yoga's codes. Variable coercion errors ("Variable "$ip" of non-null
  // type "String!" must not be null.", a scalar refusing its value) carry none: they are invalid input.
  // They come before execution, so without a path (graphql-jit wraps a scalar's GraphQLError as originalError).
  if (base && (!base.originalError || (base.originalError instanceof GraphQLError && !base.path))) {
    if (typeof base.extensions?.code === 'string') return base;
    return new GraphQLError(base.message, { ...at, extensions: { ...base.extensions, code: 'invalid_request' } });
  }
  // Not reached through useRequestErrors (a failure of yoga itself): still never shown, and logged.
  log.error('unhandled error outside execution', { err: original });
  return new GraphQLError(ERRORS.internal_error.message, { extensions: { code: 'internal_error' } });
}

/** Whether a resolver error is already one we answer as it is (ours, or the client's input). */
function known(e: unknown): boolean {
  return isAppError(e) || e instanceof GraphQLError || e instanceof PothosValidationError;
}

/**
 * Gives an execution's unknown failures the request's own id (and logs them with it) before the server masks
 * them (graphqlError): yoga's maskError sees no context, so it could only make up an id the log line did not carry.
 */
export function withRequestId<T extends { errors?: readonly GraphQLError[] }>(
  result: T,
  requestId: string,
  log: Logger,
): T {
  if (!result.errors?.some((e) => e.originalError && !known(e.originalError))) return result;
  const errors = result.errors.map((e) =>
    e.originalError && !known(e.originalError)
      ? new GraphQLError(e.message, {
          nodes: e.nodes,
          source: e.source,
          positions: e.positions,
          path: e.path,
          originalError: toAppError(e.originalError, requestId, log),
        })
      : e,
  );
  return { ...result, errors };
}
