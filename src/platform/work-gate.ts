/**
 * Places for one kind of heavy work in this process: at most `running` pieces run at once, the others wait in
 * arrival order, and a caller may have at most `perCaller` running or waiting (one more is refused at once
 * with the error `refuse` builds, so one caller cannot fill the queue ahead of everyone else). A wait given a
 * signal ends when the signal aborts (its work was ended meanwhile: a deadline): it leaves the queue and
 * rejects with the signal's reason.
 */
export type WorkGateLimits = { running: number; perCaller: number };

export class WorkGate {
  private active = 0;
  private readonly queue: Array<() => void> = [];
  private readonly perCaller = new Map<string, number>();

  constructor(
    private readonly limits: WorkGateLimits,
    private readonly refuse: (held: number) => Error,
  ) {}

  /** Waits for a place; resolves with its release (call once, when the work is done). Throws when the caller has too many in. */
  async enter(caller: string, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    const held = this.perCaller.get(caller) ?? 0;
    if (held >= this.limits.perCaller) throw this.refuse(held);
    this.perCaller.set(caller, held + 1);
    const leave = () => {
      const left = this.perCaller.get(caller)! - 1;
      if (left === 0) this.perCaller.delete(caller);
      else this.perCaller.set(caller, left);
    };
    if (this.active < this.limits.running) this.active++;
    else {
      // the place is handed over by release
      await new Promise<void>((resolve, reject) => {
        const handOver = () => {
          signal?.removeEventListener('abort', abandon);
          resolve();
        };
        const abandon = () => {
          this.queue.splice(this.queue.indexOf(handOver), 1);
          leave();
          reject(signal!.reason);
        };
        this.queue.push(handOver);
        signal?.addEventListener('abort', abandon, { once: true });
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      leave();
      const next = this.queue.shift();
      if (next) next();
      else this.active--;
    };
  }
}
