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
import { notesOf } from './request-notes.ts';
import type { Actor } from '../../domain/overrides/changes.ts';
import type { Work, WorkBudget } from '../../platform/work-budget.ts';
import { turnOver } from '../../platform/event-loop-turn.ts';

/** What the API-key transports (REST, GraphQL, MCP) are built from. */
export type ApiDeps = {
  services: Services;
  verifier: KeyVerifier;
  config: Config;
  log: Logger;
  proxies: BlockList | null;
};

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
  /** The If-None-Match header of a GET, when the transport received one: a current copy is answered 304. */
  ifNoneMatch?: string | undefined;
  /** What the request may still spend: its meter and deadline (set by the GraphQL ceilings, ceilings.ts). */
  work?: WorkBudget;
  /** performance.now() when the server took the request (absent when a test calls a transport directly). */
  arrivedAt?: number | undefined;
  /** The quota a `score` call counts on: the API's (default; REST and /graphql) or the agent surface's (MCP). */
  surface?: MeteredSurface | undefined;
};

/** The context of one API-key request. */
export function requestContext(
  deps: Pick<ApiDeps, 'services' | 'proxies'>,
  req: IncomingMessage,
  requestId: string,
  viewer: Viewer | null,
  more: Pick<RequestContext, 'via'> & Partial<Pick<RequestContext, 'idempotencyKey' | 'surface' | 'ifNoneMatch'>>,
): RequestContext {
  const ip = clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], deps.proxies);
  // The key's country of use (key.new_country): a map read for an address already seen with the key, no query.
  if (viewer) deps.services.keyCountries.note(viewer, ip);
  return {
    prisma: deps.services.prisma,
    services: deps.services,
    viewer,
    requestId,
    ...more,
    clientIp: ip,
    arrivedAt: notesOf(req).arrivedAt,
  };
}

/** The caller as an author of a change: the verified API key (its name and prefix: the trail reads without a lookup). */
export function keyActor(ctx: RequestContext): Actor {
  const v = viewerOf(ctx);
  return { kind: 'api_key', id: v.apiKeyId, label: `${v.keyName} (${v.keyPrefix})` };
}

/** The one gate every workspace-scoped resolver passes: no viewer, no data; past the deadline or the budget, no more work. */
export function viewerOf(ctx: RequestContext): Viewer {
  if (!ctx.viewer) throw new AppError('missing_api_key');
  checkWork(ctx);
  return ctx.viewer;
}

export function setWork(ctx: object, work: WorkBudget): void {
  (ctx as { work?: WorkBudget }).work = work;
}

/** Throws the refusal once the request's work was ended (deadline passed, budget spent, answer given). */
export function checkWork(ctx: { work?: WorkBudget | undefined }): void {
  ctx.work?.check();
}

/** Unmetered work, for the transports that run no meter (REST and MCP run fixed operations of bounded size). */
const UNMETERED: Work = { charge: () => {}, step: () => turnOver() };

/** The request's meter, for domain code that charges what it reads and combines. */
export function workOf(ctx: { work?: WorkBudget | undefined }): Work {
  return ctx.work ?? UNMETERED;
}

/** The caller's workspace, through the client that scopes every read to it (domain/workspace/scope.ts). */
export function workspaceDbOf(ctx: RequestContext): PrismaClient {
  return workspaceDb(ctx.prisma, viewerOf(ctx).workspaceId);
}
