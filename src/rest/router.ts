import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { KeyVerifier } from '../domain/access/verifier.ts';
import type { Config } from '../config.ts';
import { requireApiKey } from '../http/api-key-header.ts';
import { readJsonObject } from '../http/body.ts';
import { IDEMPOTENCY_KEY } from '../domain/memory/idempotency.ts';
import { rateInputSchema, reportInputSchema } from '../domain/memory/schemas.ts';
import { camelToSnakePath, snakeToCamelKeys, toDetails } from '../domain/validation.ts';
import { runOperation, type Operation } from './operation.ts';
import { rateOperation, reportOperation, shapeRate, shapeReport } from './writes.ts';
import { sendError, sendJson } from './respond.ts';
import { openApiDocument } from './openapi.ts';
import type { z } from 'zod';

export type RestDeps = { prisma: PrismaClient; verifier: KeyVerifier; config: Config; log: Logger };
type Handler = (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void>;

/** A write endpoint: auth, body, the shared zod schema (for REST-named details), then the operation. */
function writeEndpoint(deps: RestDeps, schema: z.ZodType, op: Operation, shape: (data: never) => { body: unknown; replayed: boolean }): Handler {
  return async (req, res, requestId) => {
    const viewer = await deps.verifier.verify(requireApiKey(req.headers['x-api-key'], req.headers.authorization));
    const idempotencyKey = req.headers['idempotency-key'];
    if (idempotencyKey !== undefined && (Array.isArray(idempotencyKey) || !IDEMPOTENCY_KEY.test(idempotencyKey))) {
      throw new AppError('invalid_request', 'The Idempotency-Key header must be one value of 1-255 printable ASCII characters.',
        [{ field: 'Idempotency-Key', message: 'must be 1-255 printable ASCII characters' }]);
    }
    const input = snakeToCamelKeys(await readJsonObject(req, deps.config.maxBodyBytes)) as Record<string, unknown>;
    const checked = schema.safeParse(input);
    if (!checked.success) {
      const details = toDetails(checked.error).map((d) => ({ field: camelToSnakePath(d.field), message: d.message }));
      throw new AppError('invalid_request', `The request body is invalid: check ${[...new Set(details.map((d) => d.field))].join(', ')}.`, details);
    }
    const data = await runOperation<never>(op, { input, idempotencyKey }, { prisma: deps.prisma, viewer, requestId, idempotencyKey });
    const { body, replayed } = shape(data);
    sendJson(res, replayed ? 200 : 201, body, replayed ? { 'idempotent-replayed': 'true' } : {});
  };
}

export function createRestRouter(deps: RestDeps) {
  const openapi = JSON.stringify(openApiDocument(deps.config.baseUrl));
  const routes: Record<string, Partial<Record<string, Handler>>> = {
    '/risk_api/rate': { POST: writeEndpoint(deps, rateInputSchema, rateOperation, shapeRate as never) },
    '/risk_api/report': { POST: writeEndpoint(deps, reportInputSchema, reportOperation, shapeReport as never) },
    '/risk_api/openapi.json': {
      GET: async (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(openapi);
      },
    },
  };

  return async function handleRest(req: IncomingMessage, res: ServerResponse, path: string, requestId: string) {
    const route = routes[path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path];
    try {
      if (!route) throw new AppError('not_found', `No endpoint at ${path}. See ${deps.config.baseUrl}/risk_api/openapi.json.`);
      const handler = route[req.method ?? ''];
      if (!handler) {
        const allow = Object.keys(route).join(', ');
        sendError(res, new AppError('method_not_allowed', `Use ${allow} for ${path}.`), requestId, deps.log, { allow });
        return;
      }
      await handler(req, res, requestId);
    } catch (e) {
      sendError(res, e, requestId, deps.log);
    }
  };
}
