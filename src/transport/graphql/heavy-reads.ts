/**
 * Heavy GraphQL queries take turns. Each long piece of a query's work is bounded (lists complete in turns,
 * reads come in chunks), but several heavy queries in flight at once each deliver their pieces in the same
 * round of the event loop: a database answer mapped for one, a page completed for another, a tally for a
 * third. Together those held /healthz past its bound. So a query whose estimate reaches `minCost` (a tenth of
 * the budget) runs only while one of `running` places is free, waiting its turn in arrival order; cheaper
 * queries (a score, a page of reports) never wait. A caller (workspace, or client IP without a key) may have at
 * most `perCaller` heavy queries running or waiting: one more is refused at once as `rate_limited`, so one
 * account cannot fill the queue ahead of everyone else. The execution-time ceiling counts from the moment a
 * query runs, not from when it started to wait.
 */
import { GraphQLError } from 'graphql';
import { ERRORS } from '../../errors.ts';
import { QUERY_LIMITS } from './limits.ts';

export const HEAVY_READS = { minCost: QUERY_LIMITS.maxCost / 10, running: 1, perCaller: 8 };
export type HeavyReadLimits = typeof HEAVY_READS;

export class HeavyReadGate {
  private active = 0;
  private readonly queue: Array<() => void> = [];
  private readonly perCaller = new Map<string, number>();

  constructor(private readonly limits: HeavyReadLimits = HEAVY_READS) {}

  /** Waits for a place; resolves with its release (call once, when the query is done). Throws when the caller has too many in. */
  async enter(caller: string): Promise<() => void> {
    const held = this.perCaller.get(caller) ?? 0;
    if (held >= this.limits.perCaller) {
      throw new GraphQLError(
        `You already have ${held} heavy queries (estimated at ${this.limits.minCost} cost points or more) running or waiting; send this one when one of them has answered.`,
        { extensions: { code: 'rate_limited', limit: 'heavyQueriesPerCaller', maximum: this.limits.perCaller, http: { status: ERRORS.rate_limited.status } } },
      );
    }
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
