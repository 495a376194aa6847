import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiKeyHeaders, requireApiKey, verifiedViewer } from '../http/api-key.ts';
import { readJsonObject } from '../http/body.ts';
import { requestContext, type ApiDeps } from '../http/request-context.ts';
import { notesOf } from '../http/request-notes.ts';
import { snakeToCamelKeys } from '../../domain/validation.ts';
import { AppError } from '../../errors.ts';
import { EXECUTION_CEILINGS, endAtDeadline, requestWork } from '../graphql/ceilings.ts';
import { runAsWork } from '../../platform/work-budget.ts';
import type { StreamOperation } from '../operations/stream.ts';

type Method = (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void>;

/** Why a stream's work ends when its client hung up: nobody reads what it would send. */
const CLIENT_GONE = new AppError('query_timeout', 'The client closed the connection.');

/**
 * A streamed operation (operations/stream.ts): auth, its fields from the JSON body (POST) or the query string (GET),
 * then the operation writes its answer. With `maxMs` the whole request is metered as work (graphql/ceilings.ts):
 * rows read are charged, reads before the headers are refused with a coded answer past the budget or the ceiling,
 * and a client gone mid-stream ends the work, so the next batch is never read.
 */
export function streamRoute(deps: ApiDeps, op: StreamOperation): Method {
  const answer: Method = async (req, res, requestId) => {
    const viewer = await verifiedViewer(deps.verifier, req, requireApiKey(...apiKeyHeaders(req)));
    const url = new URL(req.url ?? '/', deps.config.baseUrl);
    const get = req.method === 'GET' && op.query;
    const raw = get
      ? op.query!(url.searchParams)
      : (snakeToCamelKeys(await readJsonObject(req, deps.config.maxBodyBytes)) as Record<string, unknown>);
    const input = op.read(raw);
    const next = (cursor: string) => {
      if (!get) return undefined;
      url.searchParams.set('cursor', cursor);
      return `${url.pathname}${url.search}`;
    };
    const ctx = requestContext(deps, req, requestId, viewer, { via: 'rest' });
    await op.write(input, ctx, { res, log: deps.log, next });
  };
  if (op.maxMs === undefined) return answer;
  const ceilings = { ...EXECUTION_CEILINGS, maxMs: op.maxMs };
  return async (req, res, requestId) => {
    const work = requestWork(ceilings, false, notesOf(req).arrivedAt);
    res.once('close', () => work.end(CLIENT_GONE));
    const timer = endAtDeadline(work, ceilings, false);
    try {
      await runAsWork(work, () => answer(req, res, requestId));
    } catch (e) {
      // A read refused by the meter reaches here wrapped by Prisma: the answer is the request's own refusal.
      throw work.endedBy && work.endedBy !== CLIENT_GONE ? work.endedBy : e;
    } finally {
      clearTimeout(timer);
    }
  };
}
