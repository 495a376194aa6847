import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Logger } from '../../platform/log.ts';
import type { PaymentProvider } from './provider.ts';
import { backoffMs } from '../mail/outbox.ts';
import { BackgroundRounds } from '../../platform/background-round.ts';

/**
 * Cancellations at the provider, as an outbox (the mail outbox's pattern): when a request of a
 * workspace becomes active, every request it supersedes gets a `ProviderCancellation` row in the
 * same transaction (webhook-events.ts), so the intent cannot be lost. Rows are then sent from here
 * — right after the webhook is acknowledged, never before — and a failure (provider unreachable,
 * 5xx, ...) stays `pending` with its attempt count and error, retried with exponential backoff
 * (5 s doubling, capped at one hour) for as long as it takes. Rows are leased before the call, so
 * several processes never send one at the same time.
 */
const LEASE_MS = 60_000;

export class ProviderCancellations {
  private readonly rounds = new BackgroundRounds(
    () => this.round(),
    (e) => this.log.warn('provider cancellation round failed', { err: e }),
  );
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private prisma: PrismaClient,
    private provider: PaymentProvider,
    private log: Logger,
  ) {}

  /** Starts a round in the background (callers never wait for the provider). */
  kick(): void {
    this.rounds.wake();
  }

  /** Sends every due cancellation once. A call during a round runs one more round after it. */
  runDue(): Promise<void> {
    return this.rounds.run();
  }

  private async round() {
    const due = await this.prisma.providerCancellation.findMany({
      where: { status: 'pending', nextAttemptAt: { lte: new Date() } },
      orderBy: { id: 'asc' },
      take: 50,
    });
    for (const c of due) {
      const leased = await this.prisma.providerCancellation.updateMany({
        where: { id: c.id, status: 'pending', nextAttemptAt: c.nextAttemptAt },
        data: { nextAttemptAt: new Date(Date.now() + LEASE_MS) },
      });
      if (leased.count !== 1) continue;
      const attempts = c.attempts + 1;
      try {
        const result = await this.provider.cancelSubscription(c.providerId, c.reason);
        await this.prisma.providerCancellation.update({
          where: { id: c.id },
          data: { status: result, attempts, doneAt: new Date(), lastError: null },
        });
        this.log.info('superseded subscription cancelled at the provider', {
          requestId: c.requestId,
          providerId: c.providerId,
          result,
          attempts,
        });
      } catch (e) {
        await this.prisma.providerCancellation.update({
          where: { id: c.id },
          data: {
            attempts,
            lastError: String(e).slice(0, 500),
            nextAttemptAt: new Date(Date.now() + backoffMs(attempts)),
          },
        });
        this.log.warn('provider cancellation failed; will retry', {
          requestId: c.requestId,
          providerId: c.providerId,
          attempts,
          err: e,
        });
      }
    }
  }

  /** Retries due cancellations every `intervalMs` (unref'd: never keeps the process alive). */
  start(intervalMs = 5_000) {
    if (this.timer) return;
    this.kick(); // rows left pending by a previous run of the process
    this.timer = setInterval(() => this.kick(), intervalMs);
    this.timer.unref();
  }

  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.rounds.stop();
  }
}
