import type { IncomingMessage } from 'node:http';
import type { BlockList } from 'node:net';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Config } from '../../config.ts';
import type { Services } from '../../domain/services.ts';
import type { KeyVerifier, Viewer } from '../../domain/access/verifier.ts';
import { AppError } from '../../errors.ts';
import type { MeteredSurface } from '../../domain/metering/meter.ts';
import { workspaceDb } from '../../domain/workspace/scope.ts';
import type { Logger } from '../../platform/log.ts';
import type { ApiSurface } from '../../platform/metrics.ts';
import { clientIp } from './client-ip.ts';

/** What the API-key transports (REST, GraphQL, MCP) are built from. */
export type ApiDeps = { services: Services; verifier: KeyVerifier; config: Config; log: Logger; proxies: BlockList | null };

/**
 * What every resolver gets, whichever transport received the request: /graphql (yoga), the REST facade and the
 * MCP tools, which run the same resolvers through fixed operations.
 */
export type RequestContext = {
  prisma: PrismaClient;
  services: Services;
  /** null only when no API key was sent; an invalid key never gets this far. */
  viewer: Viewer | null;
  requestId: string;
  /** The API surface the request came through (metrics count score calls by it). */
  via: ApiSurface;
  /** The requester's address (X-Forwarded-For honoured only from trusted proxies). */
  clientIp: string;
  /** The Idempotency-Key header, when the transport received one. */
  idempotencyKey?: string | undefined;
  /** performance.now() past which a query starts no more work (set by ceilings.ts). */
  deadline?: number;
  /** The quota a `score` call counts on: the API's (default; REST and /graphql) or the agent surface's (MCP). */
  surface?: MeteredSurface | undefined;
  /**
   * The operation's input as the transport already validated it with the operation's schema (the REST facade
   * and MCP check a body first, to name problems in their own field names): the resolver takes it as it is.
   */
  input?: unknown;
};

/** The context of one API-key request. */
export function requestContext(
  deps: Pick<ApiDeps, 'services' | 'proxies'>, req: IncomingMessage, requestId: string, viewer: Viewer | null,
  more: Pick<RequestContext, 'via'> & Partial<Pick<RequestContext, 'idempotencyKey' | 'surface' | 'input'>>,
): RequestContext {
  const ip = clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], deps.proxies);
  // The key's country of use (key.new_country): a map read for an address already seen with the key, no query.
  if (viewer) deps.services.keyCountries.note(viewer, ip);
  return { prisma: deps.services.prisma, services: deps.services, viewer, requestId, ...more, clientIp: ip };
}

/** A resolver's input: the transport's validated one, else its arguments parsed here (each request validates once). */
export function inputOf<T>(ctx: RequestContext, parse: () => T): T {
  return ctx.input !== undefined ? (ctx.input as T) : parse();
}

/** The one gate every workspace-scoped resolver passes: no viewer, no data; past the deadline, no more work. */
export function viewerOf(ctx: RequestContext): Viewer {
  if (!ctx.viewer) throw new AppError('missing_api_key');
  checkDeadline(ctx);
  return ctx.viewer;
}

export function setDeadline(ctx: object, deadline: number): void {
  (ctx as { deadline?: number }).deadline = deadline;
}

/** Throws query_timeout once the request's deadline has passed (the answer is already the timeout). */
export function checkDeadline(ctx: { deadline?: number | undefined }): void {
  if (ctx.deadline !== undefined && performance.now() > ctx.deadline) {
    throw new AppError('query_timeout', 'The query ran past its time limit and was stopped.');
  }
}

/** The caller's workspace, through the client that scopes every read to it (domain/workspace/scope.ts). */
export function workspaceDbOf(ctx: RequestContext): PrismaClient {
  return workspaceDb(ctx.prisma, viewerOf(ctx).workspaceId);
}
