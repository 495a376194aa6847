import type { WebhookDelivery, WebhookEndpoint, WebhookEvent } from '../../generated/prisma/client.ts';
import type { WebhookDeps } from './deps.ts';
import { sendDelivery, type SendOutcome } from './send.ts';
import { signatureHeader } from './signature.ts';

/**
 * One HTTP attempt of a delivery, signed and recorded (WebhookAttempt), by the loop or by a person (re-send, test).
 * The body is the same bytes on every attempt of an event (its id, type, creation time and data, as stored); only
 * the signature's timestamp changes.
 */
export type DeliveryWithParts = WebhookDelivery & { event: WebhookEvent; endpoint: WebhookEndpoint };

/** The JSON body POSTed for an event (docs/webhooks.md, "The payload"): created is ISO 8601 UTC. */
export function eventBody(e: WebhookEvent): string {
  return JSON.stringify({ id: e.publicId, type: e.type, created: e.createdAt.toISOString(), data: e.data });
}

/** The secrets that sign now: the current one, and the previous one during the 24 h after a rotation. */
export function signingSecrets(endpoint: WebhookEndpoint, now: Date): string[] {
  const previous =
    endpoint.previousSecret && endpoint.previousSecretUntil && endpoint.previousSecretUntil > now
      ? [endpoint.previousSecret]
      : [];
  return [endpoint.secret, ...previous];
}

export const delivered = (o: SendOutcome) => o.httpStatus !== null && o.httpStatus >= 200 && o.httpStatus < 300;

export async function attemptDelivery(
  deps: Omit<WebhookDeps, 'wake'>,
  d: DeliveryWithParts,
  manual: boolean,
): Promise<SendOutcome> {
  const now = deps.now();
  const body = eventBody(d.event);
  const t = Math.floor(now.getTime() / 1000);
  const outcome = await sendDelivery(
    d.endpoint.url,
    body,
    {
      'risk-signature': signatureHeader(body, t, signingSecrets(d.endpoint, now)),
      'risk-event-id': d.event.publicId,
      'risk-event-type': d.event.type,
      'risk-delivery-id': String(d.id),
    },
    { allowedHosts: deps.allowedHosts, userAgent: `risk-api-webhooks/1 (+${deps.baseUrl})` },
  );
  await deps.prisma.webhookAttempt.create({
    data: {
      deliveryId: d.id,
      workspaceId: d.workspaceId,
      startedAt: now,
      latencyMs: outcome.latencyMs,
      httpStatus: outcome.httpStatus,
      error: outcome.error,
      responseExcerpt: outcome.excerpt,
      manual,
    },
  });
  return outcome;
}
