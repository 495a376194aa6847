import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Logger } from '../../platform/log.ts';
import { BackgroundRounds } from '../../platform/background-round.ts';

/**
 * The outbox: every message is a row first, delivered from there. A failed delivery stays
 * `pending` with its attempt count and error, retried with exponential backoff (capped at one
 * hour) for as long as it takes — a message is never dropped. Without a transport (no
 * SMTP_URL) messages are `held`: kept in the table, read with `risk-api mail held`. The log names each one
 * (id, recipient, subject, length) but never prints its text: a message carries links that sign someone in.
 */
export type MailMessage = { to: string; subject: string; text: string };
export type MailTransport = { send(from: string, message: MailMessage): Promise<void>; close?(): void };

const LEASE_MS = 60_000;
export function backoffMs(attempts: number): number {
  return Math.min(3_600_000, 5_000 * 2 ** Math.max(0, attempts - 1));
}

export class Mailer {
  private readonly rounds = new BackgroundRounds(
    () => this.round(),
    (e) => this.log.warn('mail round failed', { err: e }),
  );
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private prisma: PrismaClient,
    private transport: MailTransport | null,
    private from: string,
    private log: Logger,
  ) {}

  get delivers(): boolean {
    return this.transport !== null;
  }

  /** Writes the message to the outbox and starts a delivery round (not awaited by callers). */
  async enqueue(message: MailMessage): Promise<number> {
    const row = await this.prisma.mailOutbox.create({
      data: { ...message, status: this.transport ? 'pending' : 'held' },
    });
    if (!this.transport) {
      this.log.info('mail held (SMTP_URL unset): read it with `risk-api mail held`', {
        mailId: row.id,
        to: message.to,
        subject: message.subject,
        length: message.text.length,
      });
    } else {
      this.rounds.wake();
    }
    return row.id;
  }

  /**
   * Delivers every due message once (and once more after a round running now, for a message written while it read
   * the outbox). Rows are leased first, so several processes never send one twice at once.
   */
  deliverDue(): Promise<void> {
    if (!this.transport) return Promise.resolve();
    return this.rounds.run();
  }

  private async round() {
    const transport = this.transport!;
    const due = await this.prisma.mailOutbox.findMany({
      where: { status: 'pending', nextAttemptAt: { lte: new Date() } },
      orderBy: { id: 'asc' },
      take: 50,
    });
    for (const m of due) {
      const leased = await this.prisma.mailOutbox.updateMany({
        where: { id: m.id, status: 'pending', nextAttemptAt: m.nextAttemptAt },
        data: { nextAttemptAt: new Date(Date.now() + LEASE_MS) },
      });
      if (leased.count !== 1) continue;
      try {
        await transport.send(this.from, { to: m.to, subject: m.subject, text: m.text });
        await this.prisma.mailOutbox.update({
          where: { id: m.id },
          data: { status: 'sent', sentAt: new Date(), attempts: m.attempts + 1, lastError: null },
        });
      } catch (e) {
        const attempts = m.attempts + 1;
        await this.prisma.mailOutbox.update({
          where: { id: m.id },
          data: {
            attempts,
            lastError: String(e).slice(0, 500),
            nextAttemptAt: new Date(Date.now() + backoffMs(attempts)),
          },
        });
        this.log.warn('mail delivery failed; will retry', { mailId: m.id, attempts, err: e });
      }
    }
  }

  /** Retries due messages every `intervalMs` (unref'd: never keeps the process alive). */
  start(intervalMs = 5_000) {
    if (!this.transport || this.timer) return;
    this.timer = setInterval(() => this.rounds.wake(), intervalMs);
    this.timer.unref();
  }

  /** The newest held messages (no SMTP_URL), newest first, with their text: for the operator's CLI only. */
  static held(prisma: PrismaClient, limit = 20) {
    return prisma.mailOutbox.findMany({
      where: { status: 'held' },
      orderBy: { id: 'desc' },
      take: limit,
      select: { id: true, to: true, subject: true, createdAt: true, text: true },
    });
  }

  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.rounds.stop();
    this.transport?.close?.();
  }
}
