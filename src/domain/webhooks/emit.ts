import { randomBytes } from 'node:crypto';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { WebhookEventType } from './event-types.ts';

export type WebhookEventInput = { workspaceId: number; type: WebhookEventType; data: Prisma.InputJsonObject };

export const newEventId = () => `evt_${randomBytes(12).toString('base64url')}`;

/**
 * Writes an event and one outbox row per enabled endpoint of the workspace that wants its type, inside the
 * caller's transaction: the event exists exactly when what caused it committed. Returns the event's public id,
 * or null when no endpoint wants the type (nothing is stored: there is no one to deliver it to).
 * The delivery loop picks the rows up on its next round; callers may wake it after their commit.
 */
export async function emitWebhookEvent(tx: Prisma.TransactionClient, event: WebhookEventInput): Promise<string | null> {
  const endpoints = await tx.webhookEndpoint.findMany({
    where: { workspaceId: event.workspaceId, status: 'enabled', eventTypes: { has: event.type } },
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  if (endpoints.length === 0) return null;
  const publicId = newEventId();
  const row = await tx.webhookEvent.create({
    data: { publicId, workspaceId: event.workspaceId, type: event.type, data: event.data },
  });
  await tx.webhookDelivery.createMany({
    data: endpoints.map((e) => ({ eventId: row.id, endpointId: e.id, workspaceId: event.workspaceId })),
  });
  return publicId;
}
