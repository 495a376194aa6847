import { createYoga } from 'graphql-yoga';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { schema } from './schema.ts';
import { useQueryLimits } from './limits-plugin.ts';
import { useIntrospection } from './introspection.ts';
import { useExecutionCeilings, type Ceilings } from './ceilings.ts';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { jitCompatible } from './jit-scope.ts';
import { requestContext, type ApiDeps, type RequestContext } from '../http/request-context.ts';
import { apiKeyHeaders, readApiKey, verifiedViewer } from '../http/api-key.ts';
import { AppError } from '../../errors.ts';
import { readBody } from '../http/body.ts';
import { graphqlError, sendError, toAppError } from '../http/errors.ts';
import { requestIdOf } from '../http/request-id.ts';
import { useRequestErrors } from './request-errors.ts';
import { graphqlCors, type GraphQLCors } from './cors.ts';
import type { Handler } from '../http/server.ts';
import type { Logger } from '../../platform/log.ts';
import { sendGraphiqlPage, wantsGraphiql } from './graphiql.ts';

type GraphQLDeps = Pick<ApiDeps, 'services' | 'verifier' | 'log' | 'proxies'> & {
  ceilings?: Partial<Ceilings>;
  /** Answer introspection without an API key (GRAPHQL_PUBLIC_INTROSPECTION); default: only with one. */
  publicIntrospection?: boolean;
};

/** The Node adapter's server context: the request, and the id the HTTP server gave it (absent in tests calling yoga.fetch). */
type ServerContext = { req: IncomingMessage; requestId?: string };

export function createGraphQLServer(deps: GraphQLDeps) {
  return createYoga<ServerContext, RequestContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: false, // served by graphiql.ts from bundled assets (yoga's page loads its scripts from a public CDN)
    landingPage: false,
    cors: false, // graphqlCors (cors.ts) answers for CORS: yoga's default grants every Origin, with credentials
    // graphql-jit compiles each distinct operation once (cached by yoga's document cache), so large
    // selections such as the score query skip graphql-js's generic executor on every call. The
    // ceilings come after it: they wrap whichever executor runs.
    plugins: [
      useQueryLimits(),
      useIntrospection({ requireKey: !deps.publicIntrospection }),
      useGraphQlJit({}, { enableIf: (args) => jitCompatible(args.schema, args.document) }),
      useExecutionCeilings(deps.ceilings),
      useRequestErrors(deps.log),
    ],
    logging: false,
    maskedErrors: { maskError: (error) => graphqlError(error, deps.log) },
    context: async ({ request, req, requestId = requestIdOf(req) }): Promise<RequestContext> => {
      try {
        const key = readApiKey(...apiKeyHeaders(req));
        const viewer = key === null ? null : await verifiedViewer(deps.verifier, req, key);
        return requestContext(deps, req, requestId, viewer, {
          via: 'graphql',
          idempotencyKey: request.headers.get('idempotency-key') ?? undefined,
        });
      } catch (e) {
        throw toAppError(e, requestId, deps.log); // the key store unreachable: logged and answered under this request's id
      }
    },
  });
}

type Yoga = ReturnType<typeof createGraphQLServer>;

/**
 * Serves /graphql. yoga itself reads a POST body of any size into memory; here the body is read
 * first, at most `maxBytes` (MAX_BODY_BYTES, as on the REST facade), and handed to yoga as a
 * buffer. Over the limit: 413 with a GraphQL-shaped error (code payload_too_large), connection
 * closed; another content type: 415 unsupported_media_type. CORS headers (cors.ts) come first, so a granted
 * origin can read these refusals too.
 */
export function createGraphQLHandler(deps: ApiDeps): Handler {
  const yoga = createGraphQLServer({ ...deps, publicIntrospection: deps.config.publicIntrospection });
  const cors = graphqlCors(deps.config.corsOrigins);
  return (req, res, _path, requestId) =>
    serveGraphQL(yoga, req, res, requestId, { maxBytes: deps.config.maxBodyBytes, cors, log: deps.log });
}

async function serveGraphQL(
  yoga: Yoga,
  req: IncomingMessage & { body?: unknown },
  res: ServerResponse,
  requestId: string,
  opts: { maxBytes: number; cors: GraphQLCors; log: Logger },
): Promise<void> {
  const { maxBytes, cors } = opts;
  if (cors.handle(req, res)) return;
  if (wantsGraphiql(req)) return sendGraphiqlPage(res);
  if (req.method === 'POST') {
    try {
      // JSON only, as on the REST facade: yoga would also take form and multipart bodies, and answer
      // any other type with an empty 415.
      if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
        throw new AppError(
          'unsupported_media_type',
          'Send the GraphQL request as JSON ({"query": …, "variables": …}) with Content-Type: application/json.',
        );
      }
      req.body = await readBody(req, maxBytes);
      // yoga matches the type case- and space-sensitively ("APPLICATION/JSON" got an empty 415): it is JSON, say so plainly.
      req.headers['content-type'] = 'application/json';
    } catch (e) {
      sendError(res, e, requestId, opts.log, 'graphql', { connection: 'close' });
      return;
    }
  }
  await yoga(req, res, { requestId });
}
