import type { WebhookDeps } from './deps.ts';
import { attemptDelivery, delivered, type DeliveryWithParts } from './attempt.ts';
import { endpointDisabledMail } from './disabled-mail.ts';
import { SEND_TIMEOUT_MS } from './send.ts';
import { sweepWebhookHistory } from './retention.ts';
import { BackgroundRounds } from '../../platform/background-round.ts';

/**
 * The delivery loop over the outbox (docs/webhooks.md, "Retries, order and duplicates"; docs/decisions/0022).
 * Each round takes, per enabled endpoint, its OLDEST pending delivery (later ones wait: delivery is ordered per
 * endpoint) and sends it when due. A delivery is leased before it is sent, by a conditional update of its
 * nextAttemptAt (the value read must still be there, on either database), so several processes never send one at
 * once; the lease outlives the 10 s send, and when a process dies holding it, it expires and a later round sends
 * the delivery again (at-least-once: the receiver may see that one event twice). A 2xx delivers; anything else is
 * retried with exponential backoff. An endpoint failing for FAILING_LIMIT_MS is disabled, its pending deliveries
 * marked failed, and the workspace's confirmed accounts e-mailed.
 */
export const LEASE_MS = SEND_TIMEOUT_MS + 20_000;
export const FAILING_LIMIT_MS = 3 * 86_400_000;
/** 10 s, doubling, at most 1 h between attempts. */
export const retryDelayMs = (attempts: number) => Math.min(3_600_000, 10_000 * 2 ** Math.max(0, attempts - 1));
/** Endpoints sent to at once by one process, and per round. */
const PARALLEL = 8;
const PER_ROUND = 64;

export class WebhookDeliverer {
  private readonly rounds = new BackgroundRounds(
    () => this.round(),
    (e) => this.deps.log.warn('webhook round failed', { err: e }),
  );
  private timer: NodeJS.Timeout | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(readonly deps: Omit<WebhookDeps, 'wake'>) {}

  /** The deps the endpoint and delivery functions take, with this loop as the one to wake. */
  get webhookDeps(): WebhookDeps {
    return { ...this.deps, wake: () => this.wake() };
  }

  /** A round now (or right after the one running): called after a commit that wrote deliveries. */
  wake(): void {
    this.rounds.wake();
  }

  /** Sends every due head-of-line delivery once; resolves when the round (and any asked for meanwhile) is done. */
  deliverDue(): Promise<void> {
    return this.rounds.run();
  }

  /** Polls every `intervalMs` (unref'd: never keeps the process alive). */
  start(intervalMs = 1_000) {
    if (this.timer) return;
    this.timer = setInterval(() => this.wake(), intervalMs);
    this.timer.unref();
    // Finished deliveries past their retention (retention.ts), hourly; every process may sweep, deletes are idempotent.
    this.sweeper = setInterval(() => {
      sweepWebhookHistory(this.deps.prisma, this.deps.now()).catch((e) =>
        this.deps.log.warn('webhook history sweep failed', { err: e }),
      );
    }, 3_600_000);
    this.sweeper.unref();
  }

  async stop() {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.sweeper) clearInterval(this.sweeper);
    this.timer = null;
    this.sweeper = null;
    await this.rounds.stop();
  }

  private async round() {
    const { prisma } = this.deps;
    const now = this.deps.now();
    // The oldest pending delivery of each enabled endpoint (one index probe per endpoint: a backlog behind a
    // failing endpoint is never scanned), then only those due.
    const heads = await prisma.$queryRaw<Array<{ id: number }>>`
      SELECT h.id FROM "WebhookEndpoint" e
      CROSS JOIN LATERAL (
        SELECT d.id, d."nextAttemptAt" FROM "WebhookDelivery" d
        WHERE d."endpointId" = e.id AND d.status = 'pending' ORDER BY d.id LIMIT 1
      ) h
      WHERE e.status = 'enabled' AND h."nextAttemptAt" <= ${now} ORDER BY h."nextAttemptAt" LIMIT ${PER_ROUND}`;
    if (heads.length === 0) return;
    const due = await prisma.webhookDelivery.findMany({
      where: { id: { in: heads.map((h) => Number(h.id)) } },
      include: { event: true, endpoint: true },
    });
    const queue = [...due];
    await Promise.all(
      Array.from({ length: Math.min(PARALLEL, queue.length) }, async () => {
        for (let d = queue.shift(); d && !this.stopped; d = queue.shift()) {
          await this.deliverOne(d).catch((e) =>
            this.deps.log.warn('webhook delivery round step failed', { deliveryId: d!.id, err: e }),
          );
        }
      }),
    );
  }

  private async deliverOne(d: DeliveryWithParts) {
    const { prisma } = this.deps;
    const start = this.deps.now();
    const leaseUntil = new Date(start.getTime() + LEASE_MS);
    // Due, and still at the value read: a row another process leased between this round's two reads carries its
    // lease (in the future) and is left alone; so is one whose endpoint was disabled since.
    const leased = await prisma.webhookDelivery.updateMany({
      where: {
        id: d.id,
        status: 'pending',
        nextAttemptAt: { equals: d.nextAttemptAt, lte: start },
        endpoint: { is: { status: 'enabled' } },
      },
      data: { nextAttemptAt: leaseUntil },
    });
    if (leased.count !== 1) return; // another process took it, or it changed since the round read it
    const outcome = await attemptDelivery(this.deps, d, false);
    const now = this.deps.now();
    // Only while the lease is still ours: a process that stalled past it leaves the row to whoever took it since.
    const mine = { id: d.id, status: 'pending', nextAttemptAt: leaseUntil };
    if (delivered(outcome)) {
      await prisma.webhookDelivery.updateMany({
        where: mine,
        data: { status: 'delivered', deliveredAt: now, attempts: { increment: 1 } },
      });
      await prisma.webhookEndpoint.updateMany({
        where: { id: d.endpointId, failingSince: { not: null } },
        data: { failingSince: null },
      });
      return;
    }
    const attempts = d.attempts + 1;
    await prisma.webhookDelivery.updateMany({
      where: mine,
      data: { attempts: { increment: 1 }, nextAttemptAt: new Date(now.getTime() + retryDelayMs(attempts)) },
    });
    await prisma.webhookEndpoint.updateMany({
      where: { id: d.endpointId, failingSince: null },
      data: { failingSince: now },
    });
    this.deps.log.info('webhook delivery failed; will retry', {
      deliveryId: d.id,
      endpointId: d.endpointId,
      attempts,
      httpStatus: outcome.httpStatus,
      error: outcome.error,
    });
    const endpoint = await prisma.webhookEndpoint.findUnique({ where: { id: d.endpointId } });
    if (endpoint?.failingSince && now.getTime() - endpoint.failingSince.getTime() >= FAILING_LIMIT_MS) {
      await this.disable(endpoint.id, endpoint.failingSince, outcome.error ?? `HTTP ${outcome.httpStatus}`);
    }
  }

  /** Disables an endpoint that has failed for 3 days, gives up its pending deliveries, and tells the workspace. */
  private async disable(endpointId: number, failingSince: Date, lastError: string) {
    const { prisma } = this.deps;
    const result = await prisma.$transaction(async (tx) => {
      const changed = await tx.webhookEndpoint.updateMany({
        where: { id: endpointId, status: 'enabled' },
        data: {
          status: 'disabled',
          disabledReason:
            `Disabled automatically: deliveries failed since ${failingSince.toISOString()} (3 days). Last error: ${lastError}`.slice(
              0,
              1000,
            ),
        },
      });
      if (changed.count !== 1) return null; // disabled meanwhile (by someone, or another process)
      const givenUp = await tx.webhookDelivery.updateMany({
        where: { endpointId, status: 'pending' },
        data: { status: 'failed' },
      });
      return {
        givenUp: givenUp.count,
        endpoint: await tx.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } }),
      };
    });
    if (!result) return;
    const { endpoint, givenUp } = result;
    this.deps.log.warn('webhook endpoint disabled after 3 days of failures', {
      endpointId,
      workspaceId: endpoint.workspaceId,
      givenUp,
    });
    const accounts = await prisma.account.findMany({
      where: { workspaceId: endpoint.workspaceId, emailVerifiedAt: { not: null } },
      select: { email: true },
    });
    for (const a of accounts) {
      await this.deps
        .mail(
          endpointDisabledMail(a.email, this.deps.baseUrl, {
            id: endpoint.id,
            url: endpoint.url,
            failingSince,
            lastError,
            givenUp,
          }),
        )
        .catch((e) => this.deps.log.warn('endpoint-disabled mail not queued', { endpointId, err: e }));
    }
  }
}
