import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../../errors.ts';
import { apiKeyHeaders, requireApiKey, verifiedViewer } from '../http/api-key.ts';
import { requestContext, type ApiDeps } from '../http/request-context.ts';
import type { Handler } from '../http/server.ts';
import { noteRequest } from '../http/request-notes.ts';
import { readJsonObject } from '../http/body.ts';
import { IDEMPOTENCY_KEY } from '../../domain/memory/idempotency.ts';
import { snakeToCamelKeys } from '../../domain/validation.ts';
import { wireInput } from '../operations/input.ts';
import { sendError } from '../http/errors.ts';
import { openApiDocument } from './openapi.ts';
import { readBulkLines } from './bulk/route.ts';
import { OPERATIONS, STREAMS } from '../operations/index.ts';
import type { Operation as CatalogueOperation } from '../operations/operation.ts';
import { rateLimitHeaders } from '../../domain/metering/meter.ts';
import type { QuotaPosture } from '../../domain/metering/meter.ts';
import { streamRoute } from './stream-route.ts';

type Method = (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void>;

/** Operations whose REST body is not one JSON object: how their input is read from it (the document says so too). */
const BODY_READERS: Partial<Record<string, (req: IncomingMessage) => Promise<unknown>>> = {
  report_bulk: readBulkLines,
};

/**
 * An operation of the catalogue: auth, body, the operation's input schema (so REST reports its own field names),
 * its resolver, and its answer serialised once from the domain result by the operation's compiled serializer.
 */
function operationRoute(deps: ApiDeps, op: CatalogueOperation): Method {
  return async (req, res, requestId) => {
    const viewer = await verifiedViewer(deps.verifier, req, requireApiKey(...apiKeyHeaders(req)));
    const idempotencyKey = op.idempotent ? readIdempotencyKey(req.headers['idempotency-key']) : undefined;
    const reader = BODY_READERS[op.name];
    const input = reader
      ? await reader(req)
      : wireInput(op.input, snakeToCamelKeys(await readJsonObject(req, deps.config.maxBodyBytes)));
    const context = requestContext(deps, req, requestId, viewer, { via: 'rest', idempotencyKey });
    const run = async () => {
      const result = await op.resolve(input, context);
      const replayed = op.idempotent?.replayed(result) ?? false;
      const text = op.serialize(result);
      res.writeHead(op.idempotent ? (replayed ? 200 : 201) : (op.status ?? 200), {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
        ...(op.metering === 'metered' ? rateLimitHeaders((result as { quota: QuotaPosture }).quota) : {}),
        ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
      });
      res.end(text);
    };
    await (op.inTurn ? op.inTurn(viewer.workspaceId, input, run) : run());
  };
}

/**
 * A GET operation of the catalogue (op.get): auth, the query string checked by the operation's input schema, its
 * resolver, and the answer the operation makes of the result (status, headers, body: the blocklist's formats).
 */
function getRoute(deps: ApiDeps, op: CatalogueOperation): Method {
  const get = op.get!;
  return async (req, res, requestId) => {
    const viewer = await verifiedViewer(deps.verifier, req, requireApiKey(...apiKeyHeaders(req)));
    const params = new URL(req.url ?? '/', 'http://localhost').searchParams;
    const input = wireInput(op.input, get.query(params), 'The query is not valid');
    const ifNoneMatch = req.headers['if-none-match'];
    const context = requestContext(deps, req, requestId, viewer, { via: 'rest', ifNoneMatch });
    const { status, headers, body } = get.answer(await op.resolve(input, context));
    res.writeHead(status, { ...headers, ...(status === 304 ? {} : { 'content-length': Buffer.byteLength(body) }) });
    res.end(status === 304 ? undefined : body);
  };
}

function readIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header !== undefined && (Array.isArray(header) || !IDEMPOTENCY_KEY.test(header))) {
    throw new AppError(
      'invalid_request',
      'The Idempotency-Key header must be one value of 1-255 printable ASCII characters.',
      [{ field: 'Idempotency-Key', message: 'must be 1-255 printable ASCII characters' }],
    );
  }
  return header;
}

export function createRestRouter(deps: ApiDeps): Handler {
  const openapi = JSON.stringify(openApiDocument(deps.config.baseUrl));
  const routes: Record<string, Partial<Record<string, Method>>> = {
    ...Object.fromEntries(
      OPERATIONS.map((op) => [op.path, op.get ? { GET: getRoute(deps, op) } : { POST: operationRoute(deps, op) }]),
    ),
    ...Object.fromEntries(
      STREAMS.map((s) => {
        const route = streamRoute(deps, s);
        return [s.path, s.query ? { GET: route, POST: route } : { POST: route }];
      }),
    ),
    '/risk_api/openapi.json': {
      GET: async (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(openapi);
      },
    },
  };

  return async function handleRest(req, res, path, requestId) {
    const pattern = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const route = routes[pattern];
    if (route) noteRequest(req, { route: pattern });
    try {
      if (!route)
        throw new AppError('not_found', `No endpoint at ${path}. See ${deps.config.baseUrl}/risk_api/openapi.json.`);
      const handler = route[req.method ?? ''];
      if (!handler) {
        const allow = Object.keys(route).join(', ');
        throw new AppError('method_not_allowed', `Use ${allow} for ${path}.`, undefined, undefined, { allow });
      }
      await handler(req, res, requestId);
    } catch (e) {
      sendError(res, e, requestId, deps.log);
    }
  };
}
