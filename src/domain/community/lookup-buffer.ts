/**
 * Lookups waiting to be sent to the counter store, tallied per (entity, window): hits and distinct requesters.
 *
 * Why: a score call used to send its lookups on its own (one Redis round trip, or one journal write, per
 * call). Tallied here and sent once per `flushMs`, they cost one pipelined write for all calls of that
 * interval, and a busy entity (an AS, a subnet) is one counter update instead of one per call.
 *
 * What it costs: a lookup reaches the store up to `flushMs` later (readers account for it: see
 * CommunitySignals' settle delay), and a process killed with SIGKILL loses the lookups of its last interval.
 * The community signal is a statistic over many calls, so that loss is accepted; metered counts (the quota)
 * never go through here. A graceful shutdown sends the last tally (flush()).
 */
import type { CounterStore, LookupTally } from '../../counters/types.ts';

type Tally = { entity: string; windowStartMs: number; hits: number; requesters: Set<string> };
/** nowMs: the clock of the latest lookup added, sent with the batch (retention is counted from it). */
type Batch = { tallies: Map<string, Tally>; nowMs: number; resolve: () => void; reject: (e: unknown) => void; done: Promise<void> };

export class LookupBuffer {
  private batch: Batch | null = null;
  private timer: NodeJS.Timeout | null = null;

  /** flushMs 0: every add is sent at once (no tally), as a single call. */
  constructor(private readonly counters: CounterStore, private readonly flushMs: number, private readonly onError: (e: unknown) => void) {}

  /**
   * Adds one lookup of each entity; the promise settles when the batch holding it has been sent (rejecting with
   * the store's error). Callers need not wait: a failed batch is reported once through onError.
   */
  add(entities: readonly string[], requester: string, windowStartMs: number, nowMs: number): Promise<void> {
    const batch = this.batch ??= newBatch();
    batch.nowMs = Math.max(batch.nowMs, nowMs);
    for (const entity of entities) {
      const id = `${windowStartMs}|${entity}`;
      const t = batch.tallies.get(id);
      if (t) { t.hits += 1; t.requesters.add(requester); }
      else batch.tallies.set(id, { entity, windowStartMs, hits: 1, requesters: new Set([requester]) });
    }
    if (this.flushMs === 0) void this.flush();
    else this.timer ??= setTimeout(() => { void this.flush(); }, this.flushMs).unref();
    return batch.done;
  }

  /** Sends what is pending now (also on shutdown); resolves when it is stored or failed. */
  async flush(): Promise<void> {
    if (this.timer) { clearTimeout(this.timer); this.timer = null; }
    const batch = this.batch;
    if (!batch) return;
    this.batch = null;
    const tallies: LookupTally[] = [...batch.tallies.values()].map((t) => ({ ...t, requesters: [...t.requesters] }));
    try {
      await this.counters.recordLookupBatch(tallies, batch.nowMs);
      batch.resolve();
    } catch (e) {
      this.onError(e);
      batch.reject(e);
    }
  }
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const done = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
  done.catch(() => {}); // reported through onError; a caller that does not wait must not see an unhandled rejection
  return { tallies: new Map(), nowMs: -Infinity, resolve, reject, done };
}
