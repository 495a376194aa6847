import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Services } from '../../domain/services.ts';
import type { Viewer } from '../../domain/access/verifier.ts';
import { AppError } from '../../errors.ts';
import type { MeteredSurface } from '../../domain/metering/meter.ts';

/** What every resolver gets. Built per request by the transport (yoga or the REST facade). */
export type GraphQLContext = {
  prisma: PrismaClient;
  services: Services;
  /** null only when no API key was sent; an invalid key never gets this far. */
  viewer: Viewer | null;
  requestId: string;
  /** The requester's address (X-Forwarded-For honoured only from trusted proxies). */
  clientIp: string;
  /** The Idempotency-Key header, when the transport received one. */
  idempotencyKey?: string | undefined;
  /** performance.now() past which a query starts no more work (set by ceilings.ts). */
  deadline?: number;
  /** The quota a `score` call counts on: the API's (default; REST and /graphql) or the agent surface's (MCP). */
  surface?: MeteredSurface | undefined;
};

export const MISSING_KEY_MESSAGE =
  'No API key was sent. Provide it in the X-API-Key header or as an Authorization: Bearer <API_KEY> header.';

/** The one gate every workspace-scoped resolver passes: no viewer, no data; past the deadline, no more work. */
export function viewerOf(ctx: GraphQLContext): Viewer {
  if (!ctx.viewer) throw new AppError('missing_api_key', MISSING_KEY_MESSAGE);
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
