import type { PrismaClient } from '../../generated/prisma/client.ts';

/**
 * How long finished deliveries (delivered or failed), their attempts and their events are kept: the deliveries page
 * and GraphQL show them for this long, then the sweep deletes them, so the outbox does not grow without end.
 * Pending deliveries are never swept (an endpoint disabled by someone keeps its backlog until enabled or deleted).
 */
export const RETENTION_DAYS = 30;
/** Rows deleted per statement, so one sweep never holds a long transaction. */
const BATCH = 1000;

export async function sweepWebhookHistory(
  prisma: PrismaClient,
  now: Date,
): Promise<{ deliveries: number; events: number }> {
  const before = new Date(now.getTime() - RETENTION_DAYS * 86_400_000);
  let deliveries = 0;
  let events = 0;
  for (;;) {
    const old = await prisma.webhookDelivery.findMany({
      where: { status: { in: ['delivered', 'failed'] }, createdAt: { lt: before } },
      select: { id: true },
      take: BATCH,
    });
    if (old.length === 0) break;
    deliveries += (await prisma.webhookDelivery.deleteMany({ where: { id: { in: old.map((d) => d.id) } } })).count; // attempts cascade
  }
  for (;;) {
    const orphans = await prisma.webhookEvent.findMany({
      where: { createdAt: { lt: before }, deliveries: { none: {} } },
      select: { id: true },
      take: BATCH,
    });
    if (orphans.length === 0) break;
    events += (await prisma.webhookEvent.deleteMany({ where: { id: { in: orphans.map((e) => e.id) } } })).count;
  }
  return { deliveries, events };
}
