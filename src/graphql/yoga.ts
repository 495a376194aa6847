import { createYoga } from 'graphql-yoga';
import { GraphQLError } from 'graphql';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { BlockList } from 'node:net';
import { clientIp } from '../http/client-ip.ts';
import { schema } from './schema.ts';
import { useQueryLimits } from './limits-plugin.ts';
import { useGraphQlJit } from '@envelop/graphql-jit';
import type { GraphQLContext } from './context.ts';
import type { Services } from '../services.ts';
import type { KeyVerifier } from '../domain/access/verifier.ts';
import { readApiKey } from '../http/api-key-header.ts';
import { isAppError } from '../errors.ts';
import { errorFields, type Logger } from '../log.ts';

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
  if (error instanceof GraphQLError && !error.originalError) return error; // syntax / validation errors
  const requestId = randomUUID();
  log.error('unhandled GraphQL error', { requestId, ...errorFields(original) });
  return new GraphQLError(`Something went wrong on our side. Quote request id ${requestId} when you contact support.`, {
    extensions: { code: 'internal_error', request_id: requestId },
  });
}

export function createGraphQLServer(deps: { services: Services; verifier: KeyVerifier; log: Logger; proxies: BlockList | null }) {
  return createYoga<{ req: IncomingMessage }, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: { title: 'IP risk API — GraphiQL', headers: JSON.stringify({ 'X-API-Key': '<API_KEY>' }) },
    landingPage: false,
    // graphql-jit compiles each distinct operation once (cached by yoga's document cache), so large
    // selections such as the score query skip graphql-js's generic executor on every call.
    plugins: [useQueryLimits(), useGraphQlJit()],
    logging: false,
    maskedErrors: { maskError: (error) => toGraphQLError(error, deps.log) },
    context: async ({ request, req }): Promise<GraphQLContext> => {
      const key = readApiKey(request.headers.get('x-api-key'), request.headers.get('authorization'));
      const viewer = key === null ? null : await deps.verifier.verify(key);
      const idem = request.headers.get('idempotency-key') ?? undefined;
      const ip = clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], deps.proxies);
      return { prisma: deps.services.prisma, services: deps.services, viewer, requestId: randomUUID(), idempotencyKey: idem, clientIp: ip };
    },
  });
}

