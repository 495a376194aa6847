import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';
import type { WebhookDeps } from './deps.ts';
import { attemptDelivery, delivered } from './attempt.ts';
import { endpointOf, type Page } from './endpoints.ts';
import { newEventId } from './emit.ts';
import { WEBHOOK_LIMITS, type DeliveryPageInput } from './schemas.ts';

/** A delivery as the deliveries page and GraphQL show it: its event, its endpoint's URL, and its newest attempts. */
export type DeliveryView = WebhookDelivery & {
  event: WebhookEvent;
  endpoint: Pick<WebhookEndpoint, 'id' | 'url'>;
  attemptsLog: WebhookAttempt[];
};

const withParts = {
  event: true,
  endpoint: { select: { id: true, url: true } },
  attemptsLog: { orderBy: { id: 'desc' as const }, take: WEBHOOK_LIMITS.attemptsShown },
};

/** The workspace's deliveries, newest first (optionally of one endpoint, one status). */
export async function listDeliveries(
  deps: Pick<WebhookDeps, 'prisma'>,
  workspaceId: number,
  q: DeliveryPageInput,
): Promise<Page<DeliveryView>> {
  const rows = await deps.prisma.webhookDelivery.findMany({
    where: {
      workspaceId,
      ...(q.endpointId ? { endpointId: q.endpointId } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...(q.cursor ? { id: { lt: q.cursor } } : {}),
    },
    orderBy: { id: 'desc' },
    take: q.limit + 1,
    include: withParts,
  });
  const items = rows.slice(0, q.limit);
  return { items, nextCursor: rows.length > q.limit ? String(items.at(-1)!.id) : null };
}

async function deliveryView(deps: Pick<WebhookDeps, 'prisma'>, id: number): Promise<DeliveryView> {
  return deps.prisma.webhookDelivery.findUniqueOrThrow({ where: { id }, include: withParts });
}

/**
 * A person's re-send: one attempt now, recorded as manual, whatever the delivery's status (delivered, failed or
 * pending) or its endpoint's. A 2xx marks it delivered. It is outside the per-endpoint order by design: the receiver
 * dedupes on the event id, which is the same on every send.
 */
export async function resendDelivery(deps: WebhookDeps, workspaceId: number, id: number): Promise<DeliveryView> {
  const d = await deps.prisma.webhookDelivery.findFirst({
    where: { id, workspaceId },
    include: { event: true, endpoint: true },
  });
  if (!d)
    throw new AppError('not_found', `No webhook delivery ${id} in this workspace.`, [
      { field: 'id', message: 'no such delivery' },
    ]);
  const outcome = await attemptDelivery(deps, d, true);
  if (delivered(outcome)) {
    await deps.prisma.webhookDelivery.updateMany({
      where: { id, status: { not: 'delivered' } },
      data: { status: 'delivered', deliveredAt: deps.now() },
    });
    await deps.prisma.webhookEndpoint.updateMany({
      where: { id: d.endpointId, failingSince: { not: null } },
      data: { failingSince: null },
    });
  }
  await deps.prisma.webhookDelivery.update({ where: { id }, data: { attempts: { increment: 1 } } });
  return deliveryView(deps, id);
}

/**
 * Sends an endpoint.test event to one endpoint now, enabled or not and whatever types it wants: a probe, tried once
 * (no retries, outside the per-endpoint order), recorded as a delivery with its manual attempt.
 */
export async function sendTestEvent(deps: WebhookDeps, workspaceId: number, endpointId: number): Promise<DeliveryView> {
  const endpoint = await endpointOf(deps.prisma, workspaceId, endpointId);
  const now = deps.now();
  const d = await deps.prisma.$transaction(async (tx) => {
    const event = await tx.webhookEvent.create({
      data: {
        publicId: newEventId(),
        workspaceId,
        type: 'endpoint.test',
        createdAt: now,
        data: { endpoint_id: endpoint.id, message: 'A test event sent on request from the control plane or the API.' },
      },
    });
    // Failed until the attempt says otherwise, so the delivery loop never picks the probe up.
    const delivery = await tx.webhookDelivery.create({
      data: { eventId: event.id, endpointId, workspaceId, status: 'failed', attempts: 1, createdAt: now },
    });
    return { ...delivery, event, endpoint };
  });
  const outcome = await attemptDelivery(deps, d, true);
  if (delivered(outcome)) {
    await deps.prisma.webhookDelivery.update({
      where: { id: d.id },
      data: { status: 'delivered', deliveredAt: deps.now() },
    });
  }
  return deliveryView(deps, d.id);
}
