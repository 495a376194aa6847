import { AppError } from '../../errors.ts';

/**
 * Runs at most `size` jobs at once and lets at most `queue` more wait; past that a job is refused at once
 * with 503 service_unavailable (Retry-After), before it starts. Password hashing uses it: each scrypt
 * derivation holds 128 MiB on libuv's thread pool, so concurrent sign-ins must not be able to stack them up.
 */
export class WorkSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly size: number,
    private readonly queue: number,
    private readonly busyMessage: string,
  ) {}

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.running < this.size) this.running++;
    else if (this.waiting.length < this.queue) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else throw new AppError('service_unavailable', this.busyMessage, undefined, undefined, { 'retry-after': '5' });
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next)
        next(); // the slot passes straight to the next waiter
      else this.running--;
    }
  }
}
