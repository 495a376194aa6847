/**
 * Places for one kind of heavy work in this process: at most `running` pieces run at once, the others wait in
 * arrival order, and a caller may have at most `perCaller` running or waiting (one more is refused at once
 * with the error `refuse` builds, so one caller cannot fill the queue ahead of everyone else).
 */
export type WorkGateLimits = { running: number; perCaller: number };

export class WorkGate {
  private active = 0;
  private readonly queue: Array<() => void> = [];
  private readonly perCaller = new Map<string, number>();

  constructor(private readonly limits: WorkGateLimits, private readonly refuse: (held: number) => Error) {}

  /** Waits for a place; resolves with its release (call once, when the work is done). Throws when the caller has too many in. */
  async enter(caller: string): Promise<() => void> {
    const held = this.perCaller.get(caller) ?? 0;
    if (held >= this.limits.perCaller) throw this.refuse(held);
    this.perCaller.set(caller, held + 1);
    if (this.active < this.limits.running) this.active++;
    else await new Promise<void>((resolve) => this.queue.push(resolve)); // the place is handed over by release
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.perCaller.get(caller)! - 1;
      if (left === 0) this.perCaller.delete(caller);
      else this.perCaller.set(caller, left);
      const next = this.queue.shift();
      if (next) next();
      else this.active--;
    };
  }
}
