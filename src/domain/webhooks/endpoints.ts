import type { WebhookEndpoint } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';
import type { Tx, WebhookDeps } from './deps.ts';
import { newSecret, PREVIOUS_SECRET_GRACE_MS } from './signature.ts';
import { WEBHOOK_LIMITS, type CreateEndpointInput, type UpdateEndpointInput } from './schemas.ts';

/**
 * A workspace's webhook endpoints: create, update, enable/disable, delete, rotate the secret. The secret is returned
 * only by create and rotate (EndpointWithSecret), never by a read. Another workspace's endpoint id answers not_found,
 * as an unknown one does. Changes of one workspace's endpoints take turns (its row locked), so the cap holds.
 */
export type EndpointWithSecret = { endpoint: WebhookEndpoint; secret: string };

async function lockWorkspace(tx: Tx, workspaceId: number) {
  const rows = await tx.$queryRaw<
    Array<{ id: number }>
  >`SELECT "id" FROM "Workspace" WHERE "id" = ${workspaceId} FOR NO KEY UPDATE`;
  if (rows.length === 0) throw new AppError('not_found', 'The workspace no longer exists.');
}

const notFound = (id: number) =>
  new AppError('not_found', `No webhook endpoint ${id} in this workspace.`, [
    { field: 'id', message: 'no such endpoint' },
  ]);

/** The workspace's endpoint, or not_found (for another workspace's too). */
export async function endpointOf(
  tx: Pick<Tx, 'webhookEndpoint'>,
  workspaceId: number,
  id: number,
): Promise<WebhookEndpoint> {
  const e = await tx.webhookEndpoint.findFirst({ where: { id, workspaceId } });
  if (!e) throw notFound(id);
  return e;
}

export async function createEndpoint(
  deps: WebhookDeps,
  workspaceId: number,
  input: CreateEndpointInput,
): Promise<EndpointWithSecret> {
  const secret = newSecret();
  const endpoint = await deps.prisma.$transaction(async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const count = await tx.webhookEndpoint.count({ where: { workspaceId } });
    if (count >= WEBHOOK_LIMITS.endpoints) {
      throw new AppError(
        'webhook_endpoint_limit_reached',
        `The workspace has ${count} webhook endpoints, the most it may hold (${WEBHOOK_LIMITS.endpoints}); delete one first.`,
      );
    }
    return tx.webhookEndpoint.create({
      data: { workspaceId, url: input.url, eventTypes: input.eventTypes, description: input.description, secret },
    });
  });
  return { endpoint, secret };
}

export async function updateEndpoint(
  deps: WebhookDeps,
  workspaceId: number,
  input: UpdateEndpointInput,
): Promise<WebhookEndpoint> {
  return deps.prisma.$transaction(async (tx) => {
    await endpointOf(tx, workspaceId, input.id);
    return tx.webhookEndpoint.update({
      where: { id: input.id },
      data: {
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.eventTypes !== undefined ? { eventTypes: input.eventTypes } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
      },
    });
  });
}

/**
 * Disabled by someone: no new events are written for it, and its pending deliveries wait (they are sent, in order,
 * once it is enabled again). Enabling clears the failure run, so an endpoint fixed after being disabled for
 * failing starts a fresh 3 days.
 */
export async function setEndpointEnabled(
  deps: WebhookDeps,
  workspaceId: number,
  id: number,
  enabled: boolean,
  by: string,
): Promise<WebhookEndpoint> {
  const updated = await deps.prisma.$transaction(async (tx) => {
    await endpointOf(tx, workspaceId, id);
    return tx.webhookEndpoint.update({
      where: { id },
      data: enabled
        ? { status: 'enabled', disabledReason: null, failingSince: null }
        : { status: 'disabled', disabledReason: `Disabled by ${by}.`.slice(0, 1000) },
    });
  });
  if (enabled) deps.wake();
  return updated;
}

/** Deletes the endpoint with its deliveries and their attempts; the events stay (other endpoints may have them). */
export async function deleteEndpoint(deps: WebhookDeps, workspaceId: number, id: number): Promise<WebhookEndpoint> {
  return deps.prisma.$transaction(async (tx) => {
    const e = await endpointOf(tx, workspaceId, id);
    await tx.webhookEndpoint.delete({ where: { id } });
    return e;
  });
}

/**
 * A new secret, returned once. The one it replaces keeps signing (a second v1 entry) for 24 h, so receivers can
 * switch without losing a delivery; a second rotation within those 24 h drops the oldest secret at once.
 */
export async function rotateEndpointSecret(
  deps: WebhookDeps,
  workspaceId: number,
  id: number,
): Promise<EndpointWithSecret> {
  const secret = newSecret();
  const endpoint = await deps.prisma.$transaction(async (tx) => {
    const e = await endpointOf(tx, workspaceId, id);
    return tx.webhookEndpoint.update({
      where: { id },
      data: {
        secret,
        previousSecret: e.secret,
        previousSecretUntil: new Date(deps.now().getTime() + PREVIOUS_SECRET_GRACE_MS),
      },
    });
  });
  return { endpoint, secret };
}

export type Page<T> = { items: T[]; nextCursor: string | null };

/** The workspace's endpoints, oldest first. */
export async function listEndpoints(
  deps: Pick<WebhookDeps, 'prisma'>,
  workspaceId: number,
  q: { limit: number; cursor?: number | null | undefined },
): Promise<Page<WebhookEndpoint>> {
  const rows = await deps.prisma.webhookEndpoint.findMany({
    where: { workspaceId, ...(q.cursor ? { id: { gt: q.cursor } } : {}) },
    orderBy: { id: 'asc' },
    take: q.limit + 1,
  });
  const items = rows.slice(0, q.limit);
  return { items, nextCursor: rows.length > q.limit ? String(items.at(-1)!.id) : null };
}
