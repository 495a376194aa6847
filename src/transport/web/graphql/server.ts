import { GraphQLError, getOperationAST } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { WebDeps, WebRequest } from '../context.ts';
import { SESSION_COOKIE } from '../context.ts';
import { readCookies } from '../http.ts';
import { checkOrigin } from '../csrf.ts';
import { readSession, sameToken } from '../../../domain/accounts/sessions.ts';
import { useQueryLimits } from '../../graphql/limits-plugin.ts';
import { useExecutionCeilings } from '../../graphql/ceilings.ts';
import { useIntrospection } from '../../graphql/introspection.ts';
import { useRequestErrors } from '../../graphql/request-errors.ts';
import { AppError, ERRORS } from '../../../errors.ts';
import { readBody } from '../../http/body.ts';
import { graphqlError, sendError } from '../../http/errors.ts';
import type { GraphContext } from '../../graphql/context.ts';
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

const JSON_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

/** Mutations run only with the session's CSRF token; queries (including `csrfToken`) need the session alone. */
function useMutationCsrf(): Plugin<GraphContext> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const op = getOperationAST(args.document, args.operationName ?? undefined);
      if (op?.operation !== 'mutation' || (args.contextValue as GraphContext).signedIn?.csrfOk) return;
      setResultAndStopExecution({
        errors: [
          new GraphQLError(
            "Mutations need the session's CSRF token in the X-CSRF-Token header (query `{ csrfToken }` to get it). Nothing was changed.",
            { extensions: { code: 'csrf_token_invalid', http: { status: ERRORS.csrf_token_invalid.status } } },
          ),
        ],
      });
    },
  };
}

export function createWorkspaceGraphql(deps: WebDeps) {
  const yoga = createYoga<GraphContext>({
    schema: workspaceSchema,
    graphqlEndpoint: WORKSPACE_GRAPHQL_PATH,
    graphiql: false,
    landingPage: false,
    cors: false, // same origin only: no CORS headers, and foreign Origins are refused below
    logging: false,
    plugins: [
      useMutationCsrf(),
      useQueryLimits(),
      // A signed-in session is the workspace's own: its schema's introspection needs no API key.
      useIntrospection({ requireKey: false }),
      useExecutionCeilings(),
      useRequestErrors(deps.log),
    ],
    maskedErrors: { maskError: (error) => graphqlError(error, deps.log) },
  });

  async function serve(w: WebRequest): Promise<void> {
    const { req } = w;
    if (w.method !== 'POST') {
      throw new AppError(
        'method_not_allowed',
        'Send GraphQL to /workspace/graphql as a POST with Content-Type: application/json.',
        undefined,
        undefined,
        { allow: 'POST' },
      );
    }
    if (req.headers['x-api-key'] !== undefined || /^bearer\s/i.test(String(req.headers.authorization ?? '')))
      throw new AppError('api_key_not_accepted');
    checkOrigin(req, deps.config.baseUrl);
    if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
      throw new AppError(
        'unsupported_media_type',
        'Send the GraphQL request as JSON ({"query": …, "variables": …}) with Content-Type: application/json.',
      );
    }
    const session = await readSession(deps.services.prisma, readCookies(req).get(SESSION_COOKIE));
    if (!session)
      throw new AppError(
        'unauthenticated',
        'Sign in first: /workspace/graphql needs a signed-in session (the rk_session cookie set by /workspace/sign-in or /workspace/register).',
      );
    w.session = session;
    const body = await readBody(req, deps.config.maxBodyBytes);
    const sent = req.headers[CSRF_HEADER];
    // No API key reaches here (refused above): the viewer is null and every field acts for the session's account.
    const context: GraphContext = {
      prisma: deps.services.prisma,
      services: deps.services,
      viewer: null,
      requestId: w.requestId,
      via: 'graphql',
      clientIp: w.ip,
      signedIn: { deps, session, csrfOk: typeof sent === 'string' && sameToken(sent, session.csrfToken) },
    };
    const request = new Request(`http://workspace.local${WORKSPACE_GRAPHQL_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: body.toString('utf8'),
    });
    const response = await yoga.fetch(request, context);
    const text = await response.text();
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', ...JSON_HEADERS };
    response.headers.forEach((value, name) => {
      if (name === 'retry-after') headers[name] = value;
    });
    w.res.writeHead(response.status, headers);
    w.res.end(text);
  }

  /** Never renders HTML: every failure is a GraphQL-shaped JSON error with its status. */
  return async function handle(w: WebRequest): Promise<void> {
    try {
      await serve(w);
    } catch (e) {
      sendError(w.res, e, w.requestId, deps.log, 'graphql', JSON_HEADERS);
    }
  };
}
