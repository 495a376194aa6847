/**
 * Embedded counter store for a single self-hosted process: same contract as the Redis store, held in Maps.
 * Distinct requesters are exact Sets (Redis uses HyperLogLog); they stay bounded because every window expires
 * 7 days after it ends. With `file`, every mutation of quota and community counters is appended to a journal
 * (journal.ts) and replayed at open, so the counts survive a restart or a crash.
 *
 * Burst windows are deliberately NOT journaled: they last seconds to minutes, a restart outlasts most of them,
 * and journaling them would add a write per request for nothing.
 *
 * Expiry mirrors Redis: a quota counter dies at its absolute expireAtMs; burst and community entries die a TTL
 * after the write (the TTL computed from the caller's nowMs), all judged by `now()`.
 */
import { CounterUnavailableError, type CounterStore } from './types.ts';
import { meterUnits } from './meter-units.ts';
import { assertActivityRange, communityExpireAtMs, windowStart, WINDOW_MS } from './keys.ts';
import { Journal, type JournalRecord } from './journal.ts';

export interface EmbeddedCounterStoreOptions {
  /** Journal file; undefined keeps everything in memory only. */
  file?: string;
  /** Clock used for expiry and pruning (tests inject one). Default Date.now. */
  now?: () => number;
  /** Appended bytes after which the journal is compacted (also never before it outgrows its last snapshot). */
  compactAfterBytes?: number;
  /** Read the journal and never write it (`db move` reads the counters of a stopped server); writes then fail. */
  readOnly?: boolean;
}

/** What an embedded store holds now (`db move` copies it into Redis): live quota counters and cooldowns, and
 *  community windows with their exact requesters. */
export type EmbeddedCounters = {
  quotas: Array<{ key: string; value: number; expireAtMs: number }>;
  windows: Array<{ entity: string; startMs: number; hits: number; expireAtMs: number; requesters: string[] }>;
};
export type EmbeddedCounterStore = CounterStore & { contents(): EmbeddedCounters };

interface Quota {
  v: number;
  exp: number;
}
interface Burst {
  count: number;
  exp: number;
}
interface Window {
  hits: number;
  requesters: Set<string>;
  exp: number;
}

export async function createEmbeddedCounterStore(
  opts: EmbeddedCounterStoreOptions = {},
): Promise<EmbeddedCounterStore> {
  const now = opts.now ?? Date.now;
  const compactAfter = opts.compactAfterBytes ?? 4 * 1024 * 1024;
  const quotas = new Map<string, Quota>();
  const bursts = new Map<string, Burst>();
  const community = new Map<string, Map<number, Window>>(); // entity → window start → counters
  let lastPrune = now();
  let closed = false;

  function addLookups(entities: unknown[], requesters: readonly string[], start: number, exp: number, hits = 1): void {
    for (const e of entities) {
      if (typeof e !== 'string') continue;
      let windows = community.get(e);
      if (!windows) community.set(e, (windows = new Map()));
      let w = windows.get(start);
      if (!w) windows.set(start, (w = { hits: 0, requesters: new Set(), exp }));
      w.hits += hits;
      w.exp = exp;
      for (const r of requesters) w.requesters.add(r);
    }
  }

  // Records: q = counted quota units (one, or the count in its fourth field), l = one lookup of several entities; Q and W are snapshot lines.
  function apply(rec: JournalRecord): void {
    const t = now();
    const [op, a, b, c, d, e] = rec;
    if (op === 'q' && typeof a === 'string' && typeof b === 'number' && b > t) {
      quotas.set(a, { v: (quotas.get(a)?.v ?? 0) + (typeof c === 'number' ? c : 1), exp: b });
    } else if (op === 'Q' && typeof a === 'string' && typeof b === 'number' && typeof c === 'number' && c > t) {
      quotas.set(a, { v: b, exp: c });
    } else if (
      op === 'l' &&
      typeof a === 'string' &&
      typeof b === 'number' &&
      typeof c === 'number' &&
      c > t &&
      Array.isArray(d)
    ) {
      addLookups(d, [a], b, c);
    } else if (
      op === 'W' &&
      typeof a === 'string' &&
      typeof b === 'number' &&
      typeof c === 'number' &&
      typeof d === 'number' &&
      d > t &&
      Array.isArray(e)
    ) {
      addLookups(
        [a],
        e.filter((r): r is string => typeof r === 'string'),
        b,
        d,
        c,
      );
    }
  }

  function* snapshot(): Generator<JournalRecord> {
    for (const [key, q] of quotas) yield ['Q', key, q.v, q.exp];
    for (const [entity, windows] of community) {
      for (const [start, w] of windows) yield ['W', entity, start, w.hits, w.exp, [...w.requesters]];
    }
  }

  function prune(t: number): void {
    lastPrune = t;
    for (const [key, q] of quotas) if (q.exp <= t) quotas.delete(key);
    for (const [key, b] of bursts) if (b.exp <= t) bursts.delete(key);
    for (const [entity, windows] of community) {
      for (const [start, w] of windows) if (w.exp <= t) windows.delete(start);
      if (windows.size === 0) community.delete(entity);
    }
  }

  let journal: Journal | undefined;
  if (opts.file) {
    const opened = Journal.open(opts.file);
    for (const rec of opened.records) apply(rec);
    journal = opened.journal;
    if (opts.readOnly) {
      journal.close();
      journal = undefined;
    } else journal.rewrite(snapshot()); // drops expired data and any torn last line
  }

  /** Journal first, then memory: if the write fails, the caller gets an error and nothing changed. The
   *  compaction check comes after the memory update, so the snapshot includes this mutation. */
  function commit(records: JournalRecord[], mutate: () => void): void {
    if (opts.readOnly) throw new CounterUnavailableError('counter store opened read-only');
    if (!journal) {
      mutate();
      return;
    }
    try {
      journal.append(...records);
    } catch (err) {
      throw new CounterUnavailableError(`counter journal write failed: ${(err as Error).message}`, { cause: err });
    }
    mutate();
    if (journal.shouldCompact(compactAfter)) {
      try {
        journal.rewrite(snapshot());
      } catch (err) {
        // The mutation is already journaled; a failed compaction only postpones the next one.
        console.error(`[counters] journal compaction failed: ${(err as Error).message}`);
      }
    }
  }

  function open(): number {
    if (closed) throw new CounterUnavailableError('counter store is closed');
    const t = now();
    if (t - lastPrune >= WINDOW_MS) prune(t);
    return t;
  }

  const liveQuota = (key: string, t: number) => {
    const q = quotas.get(key);
    return q && q.exp > t ? q.v : 0;
  };
  const liveWindow = (entity: string, start: number, t: number) => {
    const w = community.get(entity)?.get(start);
    return w && w.exp > t ? w : undefined;
  };

  /** The live entry of a fixed burst window (created empty; not journaled: see the top of this file). */
  function burstWindow(key: string, windowMs: number, nowMs: number, t: number) {
    const start = Math.floor(nowMs / windowMs) * windowMs;
    const resetAtMs = start + windowMs;
    const id = `${key}:${start}`;
    let entry = bursts.get(id);
    if (!entry || entry.exp <= t) bursts.set(id, (entry = { count: 0, exp: t + (resetAtMs - nowMs) + windowMs }));
    return { entry, resetAtMs };
  }

  /** A fixed-window hit: counted when the window has room. */
  function hit(key: string, limit: number, windowMs: number, nowMs: number, t: number) {
    const { entry: b, resetAtMs } = burstWindow(key, windowMs, nowMs, t);
    if (b.count >= limit) return { allowed: false, count: b.count, resetAtMs };
    b.count += 1;
    return { allowed: true, count: b.count, resetAtMs };
  }

  const store: EmbeddedCounterStore = {
    contents() {
      const t = now();
      prune(t);
      return {
        quotas: [...quotas].map(([key, q]) => ({ key, value: q.v, expireAtMs: q.exp })),
        windows: [...community].flatMap(([entity, windows]) =>
          [...windows].map(([startMs, w]) => ({
            entity,
            startMs,
            hits: w.hits,
            expireAtMs: w.exp,
            requesters: [...w.requesters],
          })),
        ),
      };
    },

    async consumeIfBelow(key, limit, expireAtMs) {
      const t = open();
      const used = liveQuota(key, t);
      if (used >= limit) return { counted: false, used };
      commit([['q', key, expireAtMs]], () => quotas.set(key, { v: used + 1, exp: expireAtMs }));
      return { counted: true, used: used + 1 };
    },

    async peek(key) {
      return liveQuota(key, open());
    },

    async peekMany(keys) {
      const t = open();
      return keys.map((key) => liveQuota(key, t));
    },

    async hitWindow(key, limit, windowMs, nowMs) {
      return hit(key, limit, windowMs, nowMs, open());
    },

    async claimCooldown(key, ttlMs) {
      // Held in the quota map, so a cooldown is journaled like a quota and outlives a restart.
      const t = open();
      const held = quotas.get(key);
      if (held && held.exp > t) return { claimed: false, retryAfterMs: held.exp - t };
      const exp = t + Math.max(1, Math.ceil(ttlMs));
      commit([['q', key, exp]], () => quotas.set(key, { v: 1, exp }));
      return { claimed: true, retryAfterMs: exp - t };
    },

    async meterCall(call) {
      const n = meterUnits(call);
      const t = open();
      const used = liveQuota(call.quotaKey, t);
      const burst = burstWindow(call.burstKey, call.burstWindowMs, call.nowMs, t);
      const outcome = { used, burstResetAtMs: burst.resetAtMs };
      if (burst.entry.count + n > call.burstLimit) return { outcome: 'burst_limited', ...outcome };
      if (used + n > call.dailyLimit) return { outcome: 'quota_exhausted', ...outcome };
      burst.entry.count += n;
      const exp = call.quotaExpireAtMs;
      const keyCount = liveQuota(call.keyCountKey, t);
      // A single call journals as before (two one-unit lines); a batch writes its count.
      const line = (key: string): JournalRecord => (n === 1 ? ['q', key, exp] : ['q', key, exp, n]);
      commit([line(call.quotaKey), line(call.keyCountKey)], () => {
        quotas.set(call.quotaKey, { v: used + n, exp });
        quotas.set(call.keyCountKey, { v: keyCount + n, exp });
      });
      return { outcome: 'counted', used: used + n, burstResetAtMs: burst.resetAtMs };
    },

    async recordLookups(entityKeys, requester, nowMs) {
      const t = open();
      if (entityKeys.length === 0) return;
      const start = windowStart(nowMs);
      const exp = t + (communityExpireAtMs(start) - nowMs); // same TTL the Redis store sets
      commit([['l', requester, start, exp, entityKeys]], () => addLookups(entityKeys, [requester], start, exp));
    },

    async recordLookupBatch(tallies, nowMs) {
      const t = open();
      if (tallies.length === 0) return;
      const expiry = (start: number) => t + (communityExpireAtMs(start) - nowMs);
      // W lines add to a window (see apply), so a batch is journaled as snapshot lines, in one write.
      commit(
        tallies.map((l) => ['W', l.entity, l.windowStartMs, l.hits, expiry(l.windowStartMs), [...l.requesters]]),
        () => {
          for (const l of tallies)
            addLookups([l.entity], l.requesters, l.windowStartMs, expiry(l.windowStartMs), l.hits);
        },
      );
    },

    async readActivity(entityKey, range) {
      assertActivityRange(range);
      const t = open();
      const active: Array<{ startMs: number; hits: number }> = [];
      for (const [startMs, w] of community.get(entityKey) ?? []) {
        if (w.exp > t && startMs >= range.sinceMs && startMs < range.untilMs) active.push({ startMs, hits: w.hits });
      }
      active.sort((a, b) => a.startMs - b.startMs);
      const union = new Set<string>();
      const recent = range.recentStartsMs.map((startMs) => {
        const w = liveWindow(entityKey, startMs, t);
        if (w) for (const r of w.requesters) union.add(r);
        return { startMs, hits: w?.hits ?? 0, requesters: w?.requesters.size ?? 0 };
      });
      return { active, recent, distinctRequesters: union.size };
    },

    async seedCounter(key, value, expireAtMs) {
      const t = open();
      if (liveQuota(key, t) > 0) return false;
      if (expireAtMs <= t) return true; // as Redis: set, and gone at once
      commit([['Q', key, value, expireAtMs]], () => quotas.set(key, { v: value, exp: expireAtMs }));
      return true;
    },

    async ping() {
      open();
    },

    async close() {
      if (closed) return;
      closed = true;
      if (journal) {
        prune(now());
        journal.rewrite(snapshot());
        journal.close();
      }
    },
  };
  return store;
}
