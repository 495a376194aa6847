/**
 * The community signal of the score response: how often, and by how many requester IPs, an entity was
 * looked up recently. The rules (copied to the README):
 *
 * - Recording: every score call records one lookup of the queried IP, its subnet and its AS (when matched),
 *   as entity keys `ip:<canonical ip>`, `subnet:<cidr>`, `asn:AS<n>`, by the caller's requester IP, in the
 *   10-minute window (aligned to UTC, e.g. 12:00–12:10) that contains the call.
 * - Sending: each process tallies its lookups and sends them once per `flushMs` (lookup-buffer.ts).
 * - Snapshot: refreshed every 10 minutes at the UTC boundaries, `settleMs` after them (so every process's
 *   last tally of the ended window has been sent; settleMs > flushMs). It is computed from COMPLETE windows
 *   only; the window in progress is excluded, so a lookup becomes visible when its window ends, and every
 *   process computes the same answer from the same counters. A process caches the answer per entity until the
 *   boundary passes (bounded, least recently used first; default 50,000 entities).
 * - recent_query_windows: the last six complete windows, oldest first, each labelled with its UTC start
 *   "HH:MM", with its hits and distinct requesters.
 * - lookups_10m: hits of the last complete window. requesters_60m: distinct requesters over the six recent
 *   windows together (one requester seen in several windows counts once).
 * - Spike: a complete window is a spike when its hits are >= 20 AND >= 4 × the entity's baseline, the
 *   baseline being the mean hits per window over the other 1,007 windows of the last 7 days (an entity not
 *   looked up before has baseline 0, so 20 lookups in one window make a spike), AND they came from at least
 *   SPIKE_MIN_REQUESTERS (default 3) distinct requesters. Distinct requesters are read for the six recent
 *   windows only, so an older window counts in spike_windows_7d by its hits alone.
 * - spike_windows_7d: spikes among the last 1,008 complete windows (7 days). has_spike: one of the six
 *   recent windows is a spike.
 * - state.label, the first that holds: `spiking` (has_spike), `converging` (3 or more distinct requesters in
 *   the last hour), `active` (any lookup in the last hour), `quiet` (none).
 *
 * - ok: true for every snapshot read. A score call sends this read in the same round trip as its metering step,
 *   so the read can fail while the call is counted: it then answers `ok: false`, state `unavailable`, zero
 *   metrics and no windows (readOrUnavailable) rather than failing a call that was counted.
 *
 * Cost per cache miss: one counter read (readActivity), whose cost grows with the windows that had lookups only.
 * Counter failures (CounterUnavailableError) reach `read`'s caller unchanged and are not cached.
 */
import type { CounterStore } from '../../platform/counters/types.ts';
import { windowStart, WINDOW_MS } from '../../platform/counters/keys.ts';
import type { Hierarchy } from '../network/types.ts';
import { LruMap } from '../../platform/lru-map.ts';
import { LookupBuffer } from './lookup-buffer.ts';
import { classify, DEFAULT_SPIKE_MIN_REQUESTERS, spikeByRequesters, spikeFlags, type CommunityLabel } from './rules.ts';
import { completeWindowStarts, RECENT_WINDOWS, WEEK_WINDOWS, windowLabel } from './windows.ts';

export { COMMUNITY_LABELS, type CommunityLabel } from './rules.ts';

type Activity = Awaited<ReturnType<CounterStore['readActivity']>>;

export type CommunitySignal = {
  ok: boolean;
  label: CommunityLabel | typeof UNAVAILABLE_LABEL;
  hasSpike: boolean;
  lookups10m: number;
  requesters60m: number;
  spikeWindows7d: number;
  recentQueryWindows: Array<{ label: string; hits: number; requesters: number }>;
};

/** Dimensions whose lookups are counted: the ones a crowd of requesters can meaningfully converge on. */
export const NETWORK_CODES = ['subnet', 'asn'] as const;

/** Entity keys a score call records a lookup for: the IP, its subnet and its AS (when matched). */
export function lookupEntities(h: Hierarchy): string[] {
  const keys = [`ip:${h.ip}`];
  for (const code of NETWORK_CODES) {
    const key = h.dimensions.find((d) => d.code === code)?.entity?.key;
    if (key) keys.push(`${code}:${key}`);
  }
  return keys;
}

export const DEFAULT_CACHE_SIZE = 50_000;
export const DEFAULT_QUIET_CAPACITY = 250_000;

/** The state label of a snapshot that could not be read (ok: false). */
export const UNAVAILABLE_LABEL = 'unavailable';
const UNAVAILABLE: CommunitySignal = deepFreeze({
  ok: false,
  label: UNAVAILABLE_LABEL,
  hasSpike: false,
  lookups10m: 0,
  requesters60m: 0,
  spikeWindows7d: 0,
  recentQueryWindows: [],
});

type Entry = { start: number; signal: Promise<CommunitySignal> };

export type CommunityOptions = {
  /** Entities whose snapshot is kept (least recently read forgotten first). Default 50,000. */
  cacheSize?: number;
  /** How long lookups are tallied before being sent; 0 sends each call's lookups at once. Default 0. */
  flushMs?: number;
  /** How long after a boundary the ended window counts as complete; must exceed flushMs. Default 0. */
  settleMs?: number;
  /** Told once per batch of lookups that could not be sent. */
  onRecordError?: (e: unknown) => void;
  /** Told of each snapshot readOrUnavailable could not read. */
  onReadError?: (e: unknown) => void;
  /** Quiet entities remembered per window (see `quiet`). Default 250,000 (~15 MB at most). */
  quietCapacity?: number;
  /** Distinct requesters a window needs to be a spike (SPIKE_MIN_REQUESTERS; default 3). */
  spikeMinRequesters?: number;
};

export class CommunitySignals {
  private readonly cache: LruMap<string, Entry>;
  private readonly pending: LookupBuffer;
  private readonly settleMs: number;
  private readonly onReadError: (e: unknown) => void;
  /**
   * Entities without activity, for the window starting at `start`: they all have the same snapshot, and it
   * cannot change before the next boundary, so a set of their keys (~60 bytes each, at most quietCapacity)
   * answers them without a counter read or a cache entry. Most looked-up entities are quiet.
   */
  private quiet: { start: number; value: CommunitySignal; signal: Promise<CommunitySignal>; keys: Set<string> } | null =
    null;
  private readonly quietCapacity: number;
  private readonly spikeMinRequesters: number;

  constructor(
    private readonly counters: CounterStore,
    opts: CommunityOptions = {},
  ) {
    this.cache = new LruMap(opts.cacheSize ?? DEFAULT_CACHE_SIZE);
    this.settleMs = opts.settleMs ?? 0;
    const flushMs = opts.flushMs ?? 0;
    if (flushMs > 0 && this.settleMs <= flushMs)
      throw new RangeError(`settleMs (${this.settleMs}) must exceed flushMs (${flushMs})`);
    this.pending = new LookupBuffer(counters, flushMs, opts.onRecordError ?? (() => {}));
    this.onReadError = opts.onReadError ?? (() => {});
    this.quietCapacity = opts.quietCapacity ?? DEFAULT_QUIET_CAPACITY;
    this.spikeMinRequesters = opts.spikeMinRequesters ?? DEFAULT_SPIKE_MIN_REQUESTERS;
  }

  /** One lookup of the IP, its subnet and its AS by `requester`; settles when it has been sent (callers need not wait). */
  record(h: Hierarchy, requester: string, nowMs: number): Promise<void> {
    return this.pending.add(lookupEntities(h), requester, windowStart(nowMs), nowMs);
  }

  /** Sends the pending lookups now: at graceful shutdown, and in a test whose clock jumps past the flush interval. */
  flush(): Promise<void> {
    return this.pending.flush();
  }

  /** The snapshot of `entityKey` as of the last complete window before nowMs (less the settle delay). */
  read(entityKey: string, nowMs: number): Promise<CommunitySignal> {
    const asOfMs = nowMs - this.settleMs;
    const start = windowStart(asOfMs);
    if (this.quiet?.start === start && this.quiet.keys.has(entityKey)) return this.quiet.signal;
    const hit = this.cache.get(entityKey);
    if (hit && hit.start === start) return hit.signal;
    // The promise is cached, so concurrent calls for one entity share one pair of counter reads.
    const entry: Entry = { start, signal: this.compute(entityKey, asOfMs) };
    this.cache.set(entityKey, entry);
    entry.signal.catch(() => this.cache.deleteIf(entityKey, entry));
    return entry.signal;
  }

  /** As `read`, but a snapshot that cannot be read answers ok: false (state `unavailable`) instead of failing. */
  readOrUnavailable(entityKey: string, nowMs: number): Promise<CommunitySignal> {
    return this.read(entityKey, nowMs).catch((e: unknown) => {
      this.onReadError(e);
      return UNAVAILABLE;
    });
  }

  private async compute(entityKey: string, nowMs: number): Promise<CommunitySignal> {
    const untilMs = windowStart(nowMs); // the window in progress is not read
    const recentStartsMs = completeWindowStarts(nowMs, RECENT_WINDOWS);
    const activity = await this.counters.readActivity(entityKey, {
      sinceMs: untilMs - WEEK_WINDOWS * WINDOW_MS,
      untilMs,
      recentStartsMs,
    });
    // Most entities had no lookup all week, and all of those get the same answer within a window: one shared
    // object per window instead of ~20 new ones per entity (which outlived the young generation in the cache),
    // and their keys are remembered so the next read of the window needs no counter read.
    if (
      activity.active.length === 0 &&
      activity.distinctRequesters === 0 &&
      activity.recent.every((w) => w.requesters === 0)
    ) {
      if (this.quiet?.start !== untilMs) {
        const value = snapshotOf(activity, recentStartsMs, this.spikeMinRequesters);
        this.quiet = { start: untilMs, value, signal: Promise.resolve(value), keys: new Set() };
      }
      if (this.quiet.keys.size < this.quietCapacity) this.quiet.keys.add(entityKey);
      return this.quiet.value;
    }
    return snapshotOf(activity, recentStartsMs, this.spikeMinRequesters);
  }
}

/** The signal of one entity's activity over the recent windows (their starts, oldest first) and the week. */
function snapshotOf(
  { active, recent, distinctRequesters }: Activity,
  recentStartsMs: number[],
  minRequesters: number,
): CommunitySignal {
  const requestersAt = new Map(recentStartsMs.map((start, i) => [start, recent[i]?.requesters ?? 0]));
  const spikes = spikeFlags(
    active.map((w) => w.hits),
    WEEK_WINDOWS,
  ).map((hitSpike, i) => spikeByRequesters(hitSpike, requestersAt.get(active[i]!.startMs), minRequesters));
  const recentFrom = recentStartsMs[0]!;
  const hasSpike = active.some((w, i) => spikes[i] && w.startMs >= recentFrom);
  const recentHits = recent.reduce((sum, w) => sum + w.hits, 0);
  return deepFreeze({
    ok: true,
    label: classify({ hasSpike, recentHits, requesters60m: distinctRequesters }),
    hasSpike,
    lookups10m: recent[RECENT_WINDOWS - 1]?.hits ?? 0,
    requesters60m: distinctRequesters,
    spikeWindows7d: spikes.filter(Boolean).length,
    recentQueryWindows: recent.map((w) => ({ label: windowLabel(w.startMs), hits: w.hits, requesters: w.requesters })),
  });
}

/** Cached answers are shared between callers: freeze them so one caller can't alter another's response. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
