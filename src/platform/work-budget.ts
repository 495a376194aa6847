import { AsyncLocalStorage } from 'node:async_hooks';
import { turnOver } from './event-loop-turn.ts';

/**
 * What one request may spend while it runs, counted as it runs. A cost estimated from a query's shape cannot
 * bound work that depends on the data (how many reports link how many subjects), so the code that reads or
 * combines rows charges what it actually touched — a unit per row read, per pair combined — and the budget
 * ends the work once:
 * - the units charged pass `maxUnits` (`overBudget` builds the refusal),
 * - the deadline passes (`pastDeadline`), or
 * - the answer was given without it (`end`: a timeout answered, the client gone).
 * From then on every charge throws the reason, so each loop stops at its next step, lets go of what it held
 * (its maps are garbage once the throw unwinds), and nothing keeps running after the answer. `ended` settles
 * with the reason, for the one waiting on the work to answer at once instead.
 *
 * Work found heavy only while it runs (a cheap-looking query over a large workspace) takes the same turns as
 * work estimated heavy: once `heavyAt` units are charged, the next `step` waits for `takeHeavyTurn` (given by
 * the transport that owns the places; it is asked once per budget).
 */
export type WorkLimits = {
  maxUnits: number;
  /** performance.now() past which no more work starts. */
  deadline: number;
  heavyAt?: number;
  takeHeavyTurn?: (signal: AbortSignal) => Promise<void>;
  overBudget: (spent: number, maxUnits: number) => Error;
  pastDeadline: () => Error;
};

/** What a domain loop is given: charge work, and step (charge, then give the event loop and heavier work their turns). */
export type Work = {
  charge(units: number): void;
  step(units: number): Promise<void> | null;
};

export class WorkBudget implements Work {
  private spent = 0;
  private reason: Error | null = null;
  /** The wait for a heavy place while it is pending, true once the work holds one (or never needs to ask). */
  private heavyTurn: Promise<void> | true | null = null;
  /** Writes running under `unmetered`: their charges count but never throw, so a write once started completes. */
  private writing = 0;

  private readonly abort = new AbortController();
  /** Settles (never rejects) with the reason the work was ended. */
  readonly ended: Promise<Error>;
  private settle!: (reason: Error) => void;

  constructor(private readonly limits: WorkLimits) {
    this.ended = new Promise((resolve) => {
      this.settle = resolve;
    });
  }

  get units(): number {
    return this.spent;
  }

  /** performance.now() past which no more work starts. */
  get deadline(): number {
    return this.limits.deadline;
  }

  /** Why the work was ended, or null while it may go on. */
  get endedBy(): Error | null {
    return this.reason;
  }

  /** Aborted when the work is ended: for waits (a place in a queue) that should end with it. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Ends the work (first reason wins); every later charge throws it. */
  end(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    this.abort.abort(reason);
    this.settle(reason);
  }

  /** Counts `units` of work done; throws once the budget is spent, the deadline passed, or the work was ended. */
  charge(units: number): void {
    if (this.writing > 0) {
      this.spent += units;
      return;
    }
    if (!this.reason) {
      this.spent += units;
      if (this.spent > this.limits.maxUnits) this.end(this.limits.overBudget(this.spent, this.limits.maxUnits));
      else if (performance.now() > this.limits.deadline) this.end(this.limits.pastDeadline());
    }
    if (this.reason) throw this.reason;
  }

  /** Throws when the work may not go on; charges nothing. */
  check(): void {
    this.charge(0);
  }

  /**
   * Charges `units`, then returns what to wait for before the next step, or null when it may go on at once:
   * the heavy place once the work proved heavy, and the event loop's next turn once this one ran long.
   * After the wait, the caller's next charge or check sees whether the work was ended meanwhile.
   */
  step(units: number): Promise<void> | null {
    this.charge(units);
    const { heavyAt, takeHeavyTurn } = this.limits;
    if (this.heavyTurn === null && takeHeavyTurn && heavyAt !== undefined && this.spent >= heavyAt) {
      this.heavyTurn = takeHeavyTurn(this.abort.signal).then(
        () => {
          this.heavyTurn = true;
          this.check();
        },
        (e: unknown) => {
          this.end(e instanceof Error ? e : new Error(String(e)));
          this.check();
        },
      );
    }
    if (this.heavyTurn !== null && this.heavyTurn !== true) return this.heavyTurn; // every loop of the work waits for it
    const turn = turnOver();
    return turn ? turn.then(() => this.check()) : null;
  }

  /**
   * Runs a write that must complete once started (a write answered as failed while it completes would be
   * retried and stored twice): nothing it charges or checks ends it. The work charged meanwhile still
   * counts, and a deadline passed meanwhile ends what follows.
   */
  async unmetered<T>(write: () => T | Promise<T>): Promise<T> {
    this.check(); // a write not yet started does not start once the work has ended
    this.writing++;
    try {
      return await write();
    } finally {
      this.writing--;
    }
  }

  /** The budget of work already found heavy: its next step does not ask for a place again. */
  markHeavy(): void {
    this.heavyTurn = true;
  }
}

/**
 * The budget of the request whose code is running now, for the layer every piece of work goes through: the
 * database statements (db/metered-adapter.ts, db/pglite-turns.ts) check it before they start and charge the rows
 * they return, whichever resolver, loader, export or tool issued them. So work that no loop of ours meters (a
 * statement queued behind others while its request was answered, an aggregate issued under thirty aliases) is
 * still refused once its request's work has ended, and counted while it goes on.
 */
const running = new AsyncLocalStorage<WorkBudget>();

/** Runs `fn` (and everything it starts) as the work `work` meters. */
export function runAsWork<T>(work: WorkBudget, fn: () => T): T {
  return running.run(work, fn);
}

/** The budget of the request running now, if any. */
export function currentWork(): WorkBudget | undefined {
  return running.getStore();
}

/**
 * Runs `fn` as no request's work: for a read shared by every request that waits for it (a cache's catch-up),
 * which must not be refused because the request that happened to start it was answered.
 */
export function detachedFromWork<T>(fn: () => T): T {
  return running.exit(fn);
}
