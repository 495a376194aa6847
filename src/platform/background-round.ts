import { detachedFromWork } from './work-budget.ts';

/**
 * Work a request starts but does not wait for (a delivery round, a batch's statement, a flush, a report) runs as no
 * request's work: left in the request's work meter (work-budget.ts), its statements would be charged to that
 * request and refused once it was answered, so a delivery started by a write would fail as soon as the write's
 * answer was sent. This is the one place background work leaves the meter.
 */
export function inBackground<T>(start: () => Promise<T>): Promise<T> {
  return detachedFromWork(start);
}

/**
 * One round of a background job at a time (an outbox's delivery round): asked while a round runs, it runs one more
 * round right after, so what was written while the running round read its table is seen too; asked again meanwhile,
 * still one more. Rounds run in the background (inBackground), whoever asks.
 */
export class BackgroundRounds {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly round: () => Promise<void>,
    /** Told a round's failure when nobody waits for it (wake). */
    private readonly onError: (e: unknown) => void,
  ) {}

  /** A round now, or right after the one running; the caller does not wait, a failure goes to onError. */
  wake(): void {
    if (this.stopped) return;
    this.run().catch(this.onError);
  }

  /** Resolves when the running round, and every one asked for meanwhile, is done. */
  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = inBackground(async () => {
      do {
        this.again = false;
        await this.round();
      } while (this.again && !this.stopped);
    }).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** No round starts after this; resolves when the running one has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.again = false;
    await this.running?.catch(() => {});
  }
}
