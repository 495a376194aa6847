import type { BillingDeps } from './subscriptions.ts';
import type { VerifiedEvent } from './provider.ts';

/**
 * Applies one verified provider event. Each event id is recorded once (in the same
 * transaction as its effect), so a replay changes nothing; an event older than the newest one
 * applied to its subscription is ignored, so out-of-order delivery never regresses the state;
 * an event whose plan or order code does not match the request is logged and ignored.
 * A request that becomes active supersedes the workspace's other active one, which is then
 * cancelled at the provider: the cancellation is recorded in the same transaction and sent after
 * it (cancellations.ts), so the webhook is acknowledged at once even when the provider is down.
 * The CANCELLED event that follows for a superseded request leaves the workspace's tier alone.
 */
export type EventOutcome = 'applied' | 'replayed' | 'out_of_order' | 'mismatch' | 'unknown_subscription' | 'ignored';

const NEXT: Record<string, Record<string, string>> = {
  activated: { pending: 'active', payment_failed: 'active', suspended: 'active', active: 'active' },
  payment_failed: { active: 'payment_failed', payment_failed: 'payment_failed' },
  suspended: { active: 'suspended', payment_failed: 'suspended', pending: 'suspended' },
  cancelled: {
    pending: 'cancelled',
    active: 'cancelled',
    payment_failed: 'cancelled',
    suspended: 'cancelled',
    superseded: 'cancelled',
  },
};

export async function applyEvent(deps: BillingDeps, e: VerifiedEvent): Promise<EventOutcome> {
  let tierChange = null as { workspaceId: number; tier: string } | null,
    toCancel = 0; // set inside the transaction below
  const outcome = await deps.prisma.$transaction(async (tx): Promise<EventOutcome> => {
    const seen = await tx.providerEvent.findUnique({ where: { id: e.id } });
    if (seen) return 'replayed';
    const record = (o: EventOutcome) =>
      tx.providerEvent.create({ data: { id: e.id, type: e.rawType, outcome: o } }).then(() => o);
    const r = e.subscriptionId
      ? await tx.subscriptionRequest.findUnique({ where: { providerId: e.subscriptionId } })
      : null;
    if (!r) return record('unknown_subscription');
    if (r.planId !== e.planId || r.orderCode !== e.orderCode) {
      deps.log.warn('provider event does not match its subscription request; ignored', {
        eventId: e.id,
        orderCode: r.orderCode,
        gotOrder: e.orderCode,
        plan: r.planId,
        gotPlan: e.planId,
      });
      return record('mismatch');
    }
    if (r.lastEventAt && e.createdAt <= r.lastEventAt) return record('out_of_order');
    const next = NEXT[e.kind]?.[r.status];
    if (!next) return record('ignored');
    await tx.subscriptionRequest.update({
      where: { id: r.id },
      data: { status: next, lastEventAt: e.createdAt, updatedAt: new Date() },
    });
    if (next === 'active') {
      const superseded = await tx.subscriptionRequest.findMany({
        where: { workspaceId: r.workspaceId, status: { in: ['active', 'payment_failed'] }, id: { not: r.id } },
      });
      if (superseded.length) {
        await tx.subscriptionRequest.updateMany({
          where: { id: { in: superseded.map((o) => o.id) } },
          data: { status: 'superseded', updatedAt: new Date() },
        });
        const made = await tx.providerCancellation.createMany({
          data: superseded.map((o) => ({
            requestId: o.id,
            providerId: o.providerId,
            status: 'pending',
            reason: `Replaced by order ${r.orderCode} (${r.tier} tier)`,
          })),
          skipDuplicates: true,
        });
        toCancel = made.count;
      }
      await tx.workspace.update({ where: { id: r.workspaceId }, data: { tier: r.tier } });
      tierChange = { workspaceId: r.workspaceId, tier: r.tier };
    } else if (next === 'cancelled' || next === 'suspended') {
      // Cancelled or expired at the provider: a cancellation still waiting to be sent has nothing left to do.
      if (next === 'cancelled')
        await tx.providerCancellation.updateMany({
          where: { requestId: r.id, status: 'pending' },
          data: { status: 'inactive', doneAt: new Date() },
        });
      const stillActive = await tx.subscriptionRequest.findFirst({
        where: { workspaceId: r.workspaceId, status: { in: ['active', 'payment_failed'] } },
      });
      if (!stillActive && r.status !== 'pending' && r.status !== 'superseded') {
        await tx.workspace.update({ where: { id: r.workspaceId }, data: { tier: 'free' } });
        tierChange = { workspaceId: r.workspaceId, tier: 'free' };
      }
    }
    return record('applied');
  });
  deps.log.audit('provider event', { eventId: e.id, type: e.rawType, outcome });
  if (tierChange) {
    deps.log.audit('workspace tier changed', { via: 'payment provider', eventId: e.id, ...tierChange });
    await deps.tierChanged();
  }
  if (toCancel > 0) deps.cancellations?.kick();
  return outcome;
}
