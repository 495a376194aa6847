/**
 * Lookups waiting to be sent to the counter store, tallied per (entity, window): hits and distinct requesters.
 *
 * Sent once per `flushMs`, they cost one pipelined write for all calls of that interval, and a busy entity (an
 * AS, a subnet) is one counter update instead of one per call (decision 0010, docs/decisions/).
 *
 * What it costs: a lookup reaches the store up to `flushMs` later (readers account for it: see
 * CommunitySignals' settle delay), and a process killed with SIGKILL loses the lookups of its last interval.
 * The community signal is a statistic over many calls, so that loss is accepted; metered counts (the quota)
 * never go through here. A graceful shutdown sends the last tally (flush()).
 */
import type { CounterStore, LookupTally } from '../../platform/counters/types.ts';
import { inBackground } from '../../platform/background-round.ts';

/** One entity's lookups in one window. Most entities have one requester per batch: a Set only from the second. */
type Tally = { hits: number; first: string; more: Set<string> | null };
/** Tallies by window start, then entity key (no key string built per lookup; usually one window per batch).
 *  nowMs: the clock of the latest lookup added, sent with the batch (retention is counted from it). */
type Batch = {
  windows: Map<number, Map<string, Tally>>;
  nowMs: number;
  resolve: () => void;
  reject: (e: unknown) => void;
  done: Promise<void>;
};

export class LookupBuffer {
  private batch: Batch | null = null;
  private timer: NodeJS.Timeout | null = null;

  /** flushMs 0: every add is sent at once (no tally), as a single call. */
  constructor(
    private readonly counters: CounterStore,
    private readonly flushMs: number,
    private readonly onError: (e: unknown) => void,
  ) {}

  /**
   * Adds one lookup of each entity; the promise settles when the batch holding it has been sent (rejecting with
   * the store's error). Callers need not wait: a failed batch is reported once through onError.
   */
  add(entities: readonly string[], requester: string, windowStartMs: number, nowMs: number): Promise<void> {
    const batch = (this.batch ??= newBatch());
    batch.nowMs = Math.max(batch.nowMs, nowMs);
    let tallies = batch.windows.get(windowStartMs);
    if (!tallies) batch.windows.set(windowStartMs, (tallies = new Map()));
    for (const entity of entities) {
      const t = tallies.get(entity);
      if (!t) tallies.set(entity, { hits: 1, first: requester, more: null });
      else {
        t.hits += 1;
        if (requester !== t.first) (t.more ??= new Set()).add(requester);
      }
    }
    if (this.flushMs === 0) void inBackground(() => this.flush());
    else
      this.timer ??= setTimeout(() => {
        void inBackground(() => this.flush());
      }, this.flushMs).unref();
    return batch.done;
  }

  /** Sends what is pending now (also on shutdown); resolves when it is stored or failed. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.batch;
    if (!batch) return;
    this.batch = null;
    const tallies: LookupTally[] = [];
    for (const [windowStartMs, byEntity] of batch.windows) {
      for (const [entity, t] of byEntity) {
        tallies.push({ entity, windowStartMs, hits: t.hits, requesters: t.more ? [t.first, ...t.more] : [t.first] });
      }
    }
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
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  done.catch(() => {}); // reported through onError; a caller that does not wait must not see an unhandled rejection
  return { windows: new Map(), nowMs: -Infinity, resolve, reject, done };
}
