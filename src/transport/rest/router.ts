import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../../errors.ts';
import { apiKeyHeaders, requireApiKey, verifiedViewer } from '../http/api-key.ts';
import { requestContext, type ApiDeps } from '../http/request-context.ts';
import type { Handler } from '../http/server.ts';
import { noteRequest } from '../http/request-notes.ts';
import { readJsonObject } from '../http/body.ts';
import { IDEMPOTENCY_KEY } from '../../domain/memory/idempotency.ts';
import { ipQuerySchema, rateInputSchema, reportInputSchema } from '../../domain/memory/schemas.ts';
import { dimensionsOperation, shapeDimensions } from './dimensions.ts';
import { scoreOperation, shapeScore } from './score.ts';
import { scoreBatchOperation, shapeScoreBatch } from './score-batch.ts';
import { scoreBatchInputSchema } from '../../domain/lookups/score-batch.ts';
import { snakeToCamelKeys } from '../../domain/validation.ts';
import { restInput } from './input.ts';
import { checkBlockOperation, shapeCheckBlock } from './check-block.ts';
import { checkBlockInputSchema } from '../../domain/lookups/block-check.ts';
import { runOperation, type Operation } from './operation.ts';
import { rateOperation, reportOperation, shapeRate, shapeReport } from './writes.ts';
import { sendJson } from '../http/send.ts';
import { inBatchTurn } from '../http/score-batch-gate.ts';
import { sendError } from '../http/errors.ts';
import { openApiDocument } from './openapi.ts';
import { handleExport } from './export.ts';
import { reportBulkRoute } from './bulk/route.ts';
import type { z } from 'zod';
import { createOverrideSchema, expireOverrideSchema, listOverridesSchema, updateOverrideSchema } from '../../domain/overrides/schemas.ts';
import {
  createOverrideOperation, expireOverrideOperation, handleOverrideAudit, listOverridesOperation, shapeCreateOverride, shapeExpireOverride, shapeListOverrides,
  shapeUpdateOverride, updateOverrideOperation,
} from './overrides.ts';
import { createWatchSchema, deleteWatchSchema, listWatchesSchema, updateWatchSchema } from '../../domain/watches/schemas.ts';
import {
  createWatchOperation, deleteWatchOperation, listWatchesOperation, shapeCreateWatch, shapeDeleteWatch, shapeListWatches, shapeUpdateWatch, updateWatchOperation,
} from './watches.ts';

type Method = (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void>;

/**
 * A JSON endpoint: auth, body, the shared zod schema (so REST reports its own field names),
 * then the fixed operation on the shared schema, then the spec shape.
 */
type Endpoint = {
  schema: z.ZodType;
  op: Operation;
  /** GraphQL variables from the body (camelCase, as the schema saw it). */
  variables: (input: Record<string, unknown>) => Record<string, unknown>;
  shape: (data: never) => { body: unknown; replayed: boolean; headers?: Record<string, string> };
  /** New writes answer 201, replays and reads 200. */
  creates: boolean;
  /** The status of a success when it is not the writes' rule (a change without Idempotency-Key, e.g. creating an override: 201). */
  status?: number;
  /** Set: the operation, its shaping and its JSON run in the workspace's turn for this body (score batches: score-batch-gate.ts). */
  inTurn?: (workspaceId: number, input: Record<string, unknown>, run: () => Promise<void>) => Promise<void>;
};

function endpoint(deps: ApiDeps, spec: Endpoint): Method {
  return async (req, res, requestId) => {
    const viewer = await verifiedViewer(deps.verifier, req, requireApiKey(...apiKeyHeaders(req)));
    const idempotencyKey = spec.creates ? readIdempotencyKey(req.headers['idempotency-key']) : undefined;
    const input = snakeToCamelKeys(await readJsonObject(req, deps.config.maxBodyBytes)) as Record<string, unknown>;
    const context = requestContext(deps, req, requestId, viewer, { via: 'rest', idempotencyKey, input: restInput(spec.schema, input) });
    const run = async () => {
      const data = await runOperation<never>(spec.op, { ...spec.variables(input), ...(spec.creates ? { idempotencyKey } : {}) }, context);
      const { body, replayed, headers } = spec.shape(data);
      sendJson(res, spec.status ?? (spec.creates && !replayed ? 201 : 200), body, { ...headers, ...(replayed ? { 'idempotent-replayed': 'true' } : {}) });
    };
    await (spec.inTurn ? spec.inTurn(viewer.workspaceId, input, run) : run());
  };
}

function readIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header !== undefined && (Array.isArray(header) || !IDEMPOTENCY_KEY.test(header))) {
    throw new AppError('invalid_request', 'The Idempotency-Key header must be one value of 1-255 printable ASCII characters.',
      [{ field: 'Idempotency-Key', message: 'must be 1-255 printable ASCII characters' }]);
  }
  return header;
}

export function createRestRouter(deps: ApiDeps): Handler {
  const openapi = JSON.stringify(openApiDocument(deps.config.baseUrl));
  const routes: Record<string, Partial<Record<string, Method>>> = {
    '/risk_api/rate': { POST: endpoint(deps, { schema: rateInputSchema, op: rateOperation, variables: (input) => ({ input }), shape: shapeRate as never, creates: true }) },
    '/risk_api/report': { POST: endpoint(deps, { schema: reportInputSchema, op: reportOperation, variables: (input) => ({ input }), shape: shapeReport as never, creates: true }) },
    '/risk_api/report/bulk': { POST: reportBulkRoute(deps) },
    '/risk_api/score': { POST: endpoint(deps, { schema: ipQuerySchema, op: scoreOperation, variables: (input) => ({ ip: input.ip }), shape: shapeScore as never, creates: false }) },
    '/risk_api/score/batch': { POST: endpoint(deps, { schema: scoreBatchInputSchema, op: scoreBatchOperation, variables: (input) => ({ ips: input.ips }), shape: shapeScoreBatch as never, creates: false,
      inTurn: (workspaceId, input, run) => inBatchTurn(workspaceId, input.ips, run) }) },
    '/risk_api/check_block': { POST: endpoint(deps, { schema: checkBlockInputSchema, op: checkBlockOperation, variables: (input) => ({ cidr: input.cidr, first: input.limit, after: input.cursor }), shape: shapeCheckBlock as never, creates: false }) },
    '/risk_api/dimensions': { POST: endpoint(deps, { schema: ipQuerySchema, op: dimensionsOperation, variables: (input) => ({ ip: input.ip }), shape: shapeDimensions as never, creates: false }) },
    '/risk_api/overrides': { POST: endpoint(deps, { schema: createOverrideSchema, op: createOverrideOperation, variables: (input) => ({ input }), shape: shapeCreateOverride as never, creates: false, status: 201 }) },
    '/risk_api/overrides/list': { POST: endpoint(deps, { schema: listOverridesSchema, op: listOverridesOperation, variables: (input) => ({ state: input.state, first: input.limit, after: input.cursor }), shape: shapeListOverrides as never, creates: false }) },
    '/risk_api/overrides/update': { POST: endpoint(deps, { schema: updateOverrideSchema, op: updateOverrideOperation, variables: (input) => ({ input }), shape: shapeUpdateOverride as never, creates: false }) },
    '/risk_api/overrides/expire': { POST: endpoint(deps, { schema: expireOverrideSchema, op: expireOverrideOperation, variables: (input) => ({ id: input.id }), shape: shapeExpireOverride as never, creates: false }) },
    '/risk_api/overrides/audit': { POST: (req, res, id) => handleOverrideAudit(req, res, id, deps) },
    '/risk_api/watches': { POST: endpoint(deps, { schema: createWatchSchema, op: createWatchOperation, variables: (input) => ({ input }), shape: shapeCreateWatch as never, creates: false, status: 201 }) },
    '/risk_api/watches/list': { POST: endpoint(deps, { schema: listWatchesSchema, op: listWatchesOperation, variables: (input) => ({ first: input.limit, after: input.cursor }), shape: shapeListWatches as never, creates: false }) },
    '/risk_api/watches/update': { POST: endpoint(deps, { schema: updateWatchSchema, op: updateWatchOperation, variables: (input) => ({ input }), shape: shapeUpdateWatch as never, creates: false }) },
    '/risk_api/watches/delete': { POST: endpoint(deps, { schema: deleteWatchSchema, op: deleteWatchOperation, variables: (input) => ({ id: input.id }), shape: shapeDeleteWatch as never, creates: false }) },
    '/risk_api/export': { GET: (req, res, id) => handleExport(req, res, id, deps), POST: (req, res, id) => handleExport(req, res, id, deps) },
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
      if (!route) throw new AppError('not_found', `No endpoint at ${path}. See ${deps.config.baseUrl}/risk_api/openapi.json.`);
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
