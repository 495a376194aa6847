import { randomUUID } from 'node:crypto';
import { GraphQLError, getOperationAST } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { WebDeps, WebRequest } from '../context.ts';
import { SESSION_COOKIE } from '../context.ts';
import { readCookies, readRaw } from '../http.ts';
import { checkOrigin } from '../csrf.ts';
import { WebError } from '../web-error.ts';
import { readSession, sameToken } from '../../../domain/accounts/sessions.ts';
import { useQueryLimits } from '../../graphql/limits-plugin.ts';
import { useExecutionCeilings } from '../../graphql/ceilings.ts';
import { isAppError } from '../../../errors.ts';
import { errorFields, type Logger } from '../../../platform/log.ts';
import type { WorkspaceGraphQLContext } from './builder.ts';
import { workspaceSchema } from './schema.ts';

/**
 * POST /workspace/graphql: the control plane's GraphQL for signed-in sessions. Before anything
 * executes, the request must: be a POST of application/json, carry no API key, come from no
 * foreign Origin, and carry a live session cookie. Mutations also need the session's CSRF token
 * in X-CSRF-Token. Refusals are GraphQL-shaped (`errors[0].extensions.code`) with an HTTP status:
 *
 *   405 method_not_allowed · 401 api_key_not_accepted · 403 origin_not_allowed ·
 *   415 unsupported_media_type · 401 unauthenticated · 413 payload_too_large · 403 csrf_token_invalid
 */
export const WORKSPACE_GRAPHQL_PATH = '/workspace/graphql';
export const CSRF_HEADER = 'x-csrf-token';

class Refused extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly headers: Record<string, string> = {}) { super(message); }
}

const JSON_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

/** Mutations run only with the session's CSRF token; queries (including `csrfToken`) need the session alone. */
function useMutationCsrf(): Plugin<WorkspaceGraphQLContext> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const op = getOperationAST(args.document, args.operationName ?? undefined);
      if (op?.operation !== 'mutation' || (args.contextValue as WorkspaceGraphQLContext).csrfOk) return;
      setResultAndStopExecution({
        errors: [new GraphQLError(
          'Mutations need the session\'s CSRF token in the X-CSRF-Token header (query `{ csrfToken }` to get it). Nothing was changed.',
          { extensions: { code: 'csrf_token_invalid', http: { status: 403 } } },
        )],
      });
    },
  };
}

/** Resolver errors keep the code the domain gave them (invalid_request, not_found, rate_limited…). */
function toGraphQLError(error: unknown, log: Logger): GraphQLError {
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  if (isAppError(original)) {
    const base = error instanceof GraphQLError ? error : undefined;
    return new GraphQLError(original.message, {
      ...(base ? { nodes: base.nodes, source: base.source, positions: base.positions, path: base.path } : {}),
      extensions: {
        code: original.code,
        ...(original.details ? { details: original.details } : {}),
        ...(original.headers ? { http: { headers: original.headers } } : {}), // e.g. Retry-After of rate_limited
      },
    });
  }
  if (error instanceof GraphQLError && !error.originalError) return error; // syntax, validation, limits, CSRF
  const requestId = randomUUID();
  log.error('unhandled workspace GraphQL error', { requestId, ...errorFields(original) });
  return new GraphQLError(`Something went wrong on our side. Quote request id ${requestId} when you contact support.`, {
    extensions: { code: 'internal_error', request_id: requestId },
  });
}

export function createWorkspaceGraphql(deps: WebDeps) {
  const yoga = createYoga<WorkspaceGraphQLContext>({
    schema: workspaceSchema,
    graphqlEndpoint: WORKSPACE_GRAPHQL_PATH,
    graphiql: false,
    landingPage: false,
    cors: false, // same origin only: no CORS headers, and foreign Origins are refused below
    logging: false,
    plugins: [useMutationCsrf(), useQueryLimits(), useExecutionCeilings()],
    maskedErrors: { maskError: (error) => toGraphQLError(error, deps.log) },
  });

  async function serve(w: WebRequest): Promise<void> {
    const { req } = w;
    if (w.method !== 'POST') throw new Refused(405, 'method_not_allowed', 'Send GraphQL to /workspace/graphql as a POST with Content-Type: application/json.', { allow: 'POST' });
    if (req.headers['x-api-key'] !== undefined || /^bearer\s/i.test(String(req.headers.authorization ?? ''))) {
      throw new Refused(401, 'api_key_not_accepted', 'The workspace control plane accepts a signed-in session, not API keys. API keys work on /risk_api/ and /graphql.');
    }
    try { checkOrigin(req, deps.config.baseUrl); } catch (e) {
      if (e instanceof WebError) throw new Refused(403, 'origin_not_allowed', e.message);
      throw e;
    }
    if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
      throw new Refused(415, 'unsupported_media_type', 'Send the GraphQL request as JSON ({"query": …, "variables": …}) with Content-Type: application/json.');
    }
    const session = await readSession(deps.services.prisma, readCookies(req).get(SESSION_COOKIE));
    if (!session) throw new Refused(401, 'unauthenticated', 'Sign in first: /workspace/graphql needs a signed-in session (the rk_session cookie set by /workspace/sign-in or /workspace/register).');
    w.session = session;
    const body = await readRaw(req, deps.config.maxBodyBytes);
    const sent = req.headers[CSRF_HEADER];
    const context: WorkspaceGraphQLContext = { deps, session, csrfOk: typeof sent === 'string' && sameToken(sent, session.csrfToken), requestId: randomUUID() };
    const request = new Request(`http://workspace.local${WORKSPACE_GRAPHQL_PATH}`, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: body.toString('utf8'),
    });
    const response = await yoga.fetch(request, context);
    const text = await response.text();
    const headers: Record<string, string> = { ...JSON_HEADERS };
    response.headers.forEach((value, name) => { if (name === 'retry-after') headers[name] = value; });
    w.res.writeHead(response.status, headers);
    w.res.end(text);
  }

  /** Never renders HTML: every failure is a GraphQL-shaped JSON error with its status. */
  return async function handle(w: WebRequest): Promise<void> {
    try {
      await serve(w);
    } catch (e) {
      let refused: Refused;
      if (e instanceof Refused) refused = e;
      else if (isAppError(e)) refused = new Refused(e.status, e.code, e.message, e.headers ?? {});
      else {
        const requestId = randomUUID();
        deps.log.error('workspace GraphQL transport error', { requestId, ...errorFields(e) });
        refused = new Refused(500, 'internal_error', `Something went wrong on our side. Quote request id ${requestId} when you contact support.`);
      }
      if (w.res.headersSent) return void w.res.destroy();
      w.res.writeHead(refused.status, { ...JSON_HEADERS, ...refused.headers });
      w.res.end(JSON.stringify({ errors: [{ message: refused.message, extensions: { code: refused.code } }] }));
    }
  };
}
