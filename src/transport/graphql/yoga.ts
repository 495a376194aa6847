import { createYoga } from 'graphql-yoga';
import { GraphQLError } from 'graphql';
import { PothosValidationError } from '@pothos/core';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BlockList } from 'node:net';
import { clientIp } from '../http/client-ip.ts';
import { schema } from './schema.ts';
import { useQueryLimits } from './limits-plugin.ts';
import { useExecutionCeilings, type Ceilings } from './ceilings.ts';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { jitCompatible } from './jit-scope.ts';
import type { GraphQLContext } from './context.ts';
import type { Services } from '../../domain/services.ts';
import type { KeyVerifier } from '../../domain/access/verifier.ts';
import { apiKeyHeaders, readApiKey } from '../http/api-key.ts';
import { AppError, isAppError } from '../../errors.ts';
import { readBody } from '../http/body.ts';
import { sendJson } from '../rest/respond.ts';
import { errorFields, type Logger } from '../../platform/log.ts';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../../platform/db/unavailable.ts';
import type { GraphQLCors } from './cors.ts';
import { sendGraphiqlPage, wantsGraphiql } from './graphiql.ts';

/** Maps resolver errors to GraphQL errors carrying the same code as REST in extensions.code. */
function toGraphQLError(error: unknown, log: Logger): GraphQLError {
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  if (isAppError(original)) {
    const base = error instanceof GraphQLError ? error : undefined;
    const authFailure = original.code === 'missing_api_key' || original.code === 'invalid_api_key' || original.code === 'conflicting_api_keys';
    return new GraphQLError(original.message, {
      ...(base ? { nodes: base.nodes, source: base.source, positions: base.positions, path: base.path } : {}),
      extensions: {
        code: original.code,
        ...(original.details ? { details: original.details } : {}),
        ...(authFailure ? { http: { status: original.status } } : {}),
      },
    });
  }
  // The relay plugin checks paging arguments itself ("Invalid cursor: x", a negative `first`): the client's input, not our fault.
  if (original instanceof PothosValidationError) {
    const base = error instanceof GraphQLError ? error : undefined;
    return new GraphQLError(original.message, {
      ...(base ? { nodes: base.nodes, source: base.source, positions: base.positions, path: base.path } : {}),
      extensions: { code: 'invalid_request' },
    });
  }
  // Syntax and validation errors carry yoga's codes. Variable coercion errors ("Variable "$ip" of non-null
  // type "String!" must not be null.", a scalar refusing its value) carry none: they are invalid input.
  // They come before execution, so without a path (graphql-jit wraps a scalar's GraphQLError as originalError).
  if (error instanceof GraphQLError && (!error.originalError || (error.originalError instanceof GraphQLError && !error.path))) {
    if (typeof error.extensions?.code === 'string') return error;
    return new GraphQLError(error.message, {
      nodes: error.nodes, source: error.source, positions: error.positions, path: error.path,
      extensions: { ...error.extensions, code: 'invalid_request' },
    });
  }
  const requestId = randomUUID();
  if (isDatabaseUnavailable(original)) {
    log.error('database unavailable', { requestId, ...errorFields(original) });
    return new GraphQLError(DATABASE_UNAVAILABLE_MESSAGE, {
      extensions: { code: 'database_unavailable', request_id: requestId },
    });
  }
  log.error('unhandled GraphQL error', { requestId, ...errorFields(original) });
  return new GraphQLError(`Something went wrong on our side. Quote request id ${requestId} when you contact support.`, {
    extensions: { code: 'internal_error', request_id: requestId },
  });
}

export function createGraphQLServer(deps: { services: Services; verifier: KeyVerifier; log: Logger; proxies: BlockList | null; ceilings?: Ceilings }) {
  return createYoga<{ req: IncomingMessage }, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: false, // served by graphiql.ts from bundled assets (yoga's page loads its scripts from a public CDN)
    landingPage: false,
    cors: false, // graphqlCors (cors.ts) answers for CORS: yoga's default grants every Origin, with credentials
    // graphql-jit compiles each distinct operation once (cached by yoga's document cache), so large
    // selections such as the score query skip graphql-js's generic executor on every call. The
    // ceilings come after it: they wrap whichever executor runs.
    plugins: [useQueryLimits(), useGraphQlJit({}, { enableIf: (args) => jitCompatible(args.schema, args.document) }), useExecutionCeilings(deps.ceilings)],
    logging: false,
    maskedErrors: { maskError: (error) => toGraphQLError(error, deps.log) },
    context: async ({ request, req }): Promise<GraphQLContext> => {
      const key = readApiKey(...apiKeyHeaders(req));
      const viewer = key === null ? null : await deps.verifier.verify(key);
      const idem = request.headers.get('idempotency-key') ?? undefined;
      const ip = clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], deps.proxies);
      return { prisma: deps.services.prisma, services: deps.services, viewer, requestId: randomUUID(), idempotencyKey: idem, clientIp: ip };
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
export async function serveGraphQL(yoga: Yoga, req: IncomingMessage & { body?: unknown }, res: ServerResponse, maxBytes: number, cors: GraphQLCors): Promise<void> {
  if (cors.handle(req, res)) return;
  if (wantsGraphiql(req)) return sendGraphiqlPage(res);
  if (req.method === 'POST') {
    try {
      // JSON only, as on the REST facade: yoga would also take form and multipart bodies, and answer
      // any other type with an empty 415.
      if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
        throw new AppError('unsupported_media_type', 'Send the GraphQL request as JSON ({"query": …, "variables": …}) with Content-Type: application/json.');
      }
      req.body = await readBody(req, maxBytes);
      // yoga matches the type case- and space-sensitively ("APPLICATION/JSON" got an empty 415): it is JSON, say so plainly.
      req.headers['content-type'] = 'application/json';
    } catch (e) {
      if (!isAppError(e)) throw e;
      sendJson(res, e.status, { errors: [{ message: e.message, extensions: { code: e.code } }] }, { connection: 'close' });
      return;
    }
  }
  await yoga(req, res);
}
