/**
 * One contract, two stores: every test here runs against Redis (real server, random key prefix per test) and
 * against the embedded in-memory store, so callers can switch with REDIS_URL and see the same behaviour.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { STORES, closeStores, stopClusters } from '../helpers/counter-stores.ts';
import {
  burstKey,
  keyQuotaKey,
  nextUtcMidnightMs,
  quotaKey,
  utcDay,
  windowStart,
  WINDOW_MS,
} from '../../src/platform/counters/keys.ts';

afterEach(closeStores);
afterAll(stopClusters, 30_000);

describe.each(STORES)('CounterStore contract: %s', (_name, open) => {
  const today = () => quotaKey(randomUUID(), 'api_score', utcDay(Date.now()));
  const midnight = () => nextUtcMidnightMs(Date.now());

  it('counts exactly `limit` of 500 concurrent quota calls with limit 120', async () => {
    const store = await open();
    const key = today();
    const results = await Promise.all(Array.from({ length: 500 }, () => store.consumeIfBelow(key, 120, midnight())));
    const counted = results.filter((r) => r.counted);
    expect(counted.length).toBe(120);
    // each counted call saw a distinct value 1..120: no two callers reserved the same unit
    expect(counted.map((r) => r.used).sort((a, b) => a - b)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(results.filter((r) => !r.counted).every((r) => r.used === 120)).toBe(true);
    expect(await store.peek(key)).toBe(120);
  });

  it('seeds a counter brought from another store only where none exists, with its expiry', async () => {
    const store = await open();
    const key = today();
    expect(await store.seedCounter(key, 41, midnight())).toBe(true);
    expect(await store.peek(key)).toBe(41);
    expect(await store.seedCounter(key, 7, midnight())).toBe(false);
    expect(await store.peek(key)).toBe(41);
    // counting continues from the seeded value
    expect(await store.consumeIfBelow(key, 100, midnight())).toEqual({ counted: true, used: 42 });
    const short = today();
    expect(await store.seedCounter(short, 3, Date.now() + 150)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(await store.peek(short)).toBe(0);
  });

  it('reports used and counted around the limit, and keeps surfaces and workspaces apart', async () => {
    const store = await open();
    const ws = randomUUID();
    const day = utcDay(Date.now());
    const api = quotaKey(ws, 'api_score', day);
    const direct = quotaKey(ws, 'direct_report', day);
    expect(await store.consumeIfBelow(api, 2, midnight())).toEqual({ counted: true, used: 1 });
    expect(await store.consumeIfBelow(api, 2, midnight())).toEqual({ counted: true, used: 2 });
    expect(await store.consumeIfBelow(api, 2, midnight())).toEqual({ counted: false, used: 2 });
    expect(await store.consumeIfBelow(direct, 2, midnight())).toEqual({ counted: true, used: 1 });
    expect(await store.consumeIfBelow(api, 0, midnight())).toEqual({ counted: false, used: 2 });
    expect(await store.peekMany([api, quotaKey(randomUUID(), 'api_score', day), direct])).toEqual([2, 0, 1]);
    expect(await store.peekMany([])).toEqual([]);
    expect(await store.peek(quotaKey(ws, 'api_score', '19990101'))).toBe(0);
  });

  it('limits bursts per fixed window; rejected hits do not count; the next window starts fresh', async () => {
    const store = await open();
    const key = burstKey(randomUUID(), 'rk_a');
    const windowMs = 60_000;
    const start = Math.floor(Date.now() / windowMs) * windowMs;
    const resetAtMs = start + windowMs;
    expect(await store.hitWindow(key, 2, windowMs, start)).toEqual({ allowed: true, count: 1, resetAtMs });
    expect(await store.hitWindow(key, 2, windowMs, start + 10)).toEqual({ allowed: true, count: 2, resetAtMs });
    expect(await store.hitWindow(key, 2, windowMs, start + 20)).toEqual({ allowed: false, count: 2, resetAtMs });
    expect(await store.hitWindow(key, 2, windowMs, resetAtMs - 1)).toEqual({ allowed: false, count: 2, resetAtMs });
    // a different key has its own window
    expect(await store.hitWindow(burstKey(randomUUID(), 'rk_a'), 2, windowMs, start + 30)).toMatchObject({
      allowed: true,
      count: 1,
    });
    expect(await store.hitWindow(key, 2, windowMs, resetAtMs)).toEqual({
      allowed: true,
      count: 1,
      resetAtMs: resetAtMs + windowMs,
    });
  });

  it('grants a cooldown to exactly one of 200 concurrent claims, answers how long it still lasts, and frees it after its TTL', async () => {
    const store = await open();
    const key = `rl:{mail:${randomUUID()}}:cool:verify`;
    const results = await Promise.all(Array.from({ length: 200 }, () => store.claimCooldown(key, 60_000)));
    expect(results.filter((r) => r.claimed)).toEqual([{ claimed: true, retryAfterMs: 60_000 }]);
    for (const r of results.filter((x) => !x.claimed)) {
      expect(r.retryAfterMs).toBeGreaterThan(0);
      expect(r.retryAfterMs).toBeLessThanOrEqual(60_000);
    }
    // A refused claim does not extend the holder's: the time left only shrinks.
    const later = await store.claimCooldown(key, 60_000);
    expect(later.claimed).toBe(false);
    expect(later.retryAfterMs).toBeLessThanOrEqual(Math.min(...results.map((r) => r.retryAfterMs)));
    // Another key is free; a short claim frees itself (waiting longer than its TTL always suffices). The TTL is a
    // second so that the claim right after the first still falls inside it on a loaded machine.
    expect(await store.claimCooldown(`${key}:other`, 60_000)).toMatchObject({ claimed: true });
    const short = `${key}:short`;
    expect((await store.claimCooldown(short, 1_000)).claimed).toBe(true);
    expect((await store.claimCooldown(short, 1_000)).claimed).toBe(false);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await store.claimCooldown(short, 1_000)).claimed).toBe(true);
  });

  it("meters a call in one step: burst first (refusals count nowhere), then the daily quota and the key's own count", async () => {
    const store = await open();
    const ws = randomUUID();
    const start = Math.floor(Date.now() / 1000) * 1000;
    const call = (prefix: string, nowMs: number, dailyLimit = 3) =>
      store.meterCall({
        quotaKey: quotaKey(ws, 'api_score', utcDay(nowMs)),
        dailyLimit,
        quotaExpireAtMs: midnight(),
        keyCountKey: keyQuotaKey(ws, 'api_score', utcDay(nowMs), prefix),
        burstKey: burstKey(ws, prefix),
        burstLimit: 2,
        burstWindowMs: 1000,
        nowMs,
      });
    const resetA = start + 1000;
    expect(await call('rk_a', start)).toEqual({ outcome: 'counted', used: 1, burstResetAtMs: resetA });
    expect(await call('rk_a', start + 1)).toEqual({ outcome: 'counted', used: 2, burstResetAtMs: resetA });
    // third call of the key in that second: refused by the burst limit, the quota stays at 2
    expect(await call('rk_a', start + 2)).toEqual({ outcome: 'burst_limited', used: 2, burstResetAtMs: resetA });
    // another key of the same workspace has its own burst window but shares the daily quota
    expect(await call('rk_b', start + 3)).toEqual({ outcome: 'counted', used: 3, burstResetAtMs: resetA });
    // the day is used up: refused by the quota; the next second's burst window starts fresh
    expect(await call('rk_a', start + 1000)).toEqual({
      outcome: 'quota_exhausted',
      used: 3,
      burstResetAtMs: resetA + 1000,
    });
    expect(await store.peek(quotaKey(ws, 'api_score', utcDay(start)))).toBe(3);
    // each key's own count: only its counted calls (rk_a's burst and quota refusals counted nowhere)
    expect(
      await store.peekMany(['rk_a', 'rk_b', 'rk_c'].map((k) => keyQuotaKey(ws, 'api_score', utcDay(start), k))),
    ).toEqual([2, 1, 0]);
  });

  it('meters a batch of units all or nothing: both limits must hold the units, a refusal by either changes no counter', async () => {
    const store = await open();
    const ws = randomUUID();
    const start = Math.floor(Date.now() / 1000) * 1000;
    const day = utcDay(start);
    const call = (units: number, nowMs: number, dailyLimit = 10, prefix = 'rk_a') =>
      store.meterCall({
        quotaKey: quotaKey(ws, 'api_score', day),
        dailyLimit,
        quotaExpireAtMs: midnight(),
        keyCountKey: keyQuotaKey(ws, 'api_score', day, prefix),
        burstKey: burstKey(ws, prefix),
        burstLimit: 5,
        burstWindowMs: 1000,
        nowMs,
        units,
      });
    const reset = start + 1000;
    const counts = async () => [
      await store.peek(quotaKey(ws, 'api_score', day)),
      await store.peek(keyQuotaKey(ws, 'api_score', day, 'rk_a')),
    ];
    expect(await call(3, start)).toEqual({ outcome: 'counted', used: 3, burstResetAtMs: reset });
    // 3 + 3 passes the burst limit of 5: refused whole, nothing advanced (a 2 still fits the same second)
    expect(await call(3, start + 1)).toEqual({ outcome: 'burst_limited', used: 3, burstResetAtMs: reset });
    expect(await call(2, start + 2)).toEqual({ outcome: 'counted', used: 5, burstResetAtMs: reset });
    expect(await call(1, start + 3)).toEqual({ outcome: 'burst_limited', used: 5, burstResetAtMs: reset });
    // next second (the day's limit now 9): 5 units fit the burst window but not the 4 left of the day
    expect(await call(5, start + 1000, 9)).toEqual({
      outcome: 'quota_exhausted',
      used: 5,
      burstResetAtMs: reset + 1000,
    });
    // the quota refusal left the burst window empty: the whole window is still there for a batch that fits the day
    expect(await call(4, start + 1001, 9)).toEqual({ outcome: 'counted', used: 9, burstResetAtMs: reset + 1000 });
    // ...and it holds those 4 now: 2 more pass the burst limit, whatever the day allows
    expect(await call(2, start + 1002, 100)).toEqual({
      outcome: 'burst_limited',
      used: 9,
      burstResetAtMs: reset + 1000,
    });
    expect(await call(1, start + 2000, 9)).toEqual({
      outcome: 'quota_exhausted',
      used: 9,
      burstResetAtMs: reset + 2000,
    });
    expect(await counts()).toEqual([9, 9]);
    // units are a positive integer: anything else would count wrongly
    for (const bad of [0, -1, 1.5]) await expect(call(bad, start + 3000)).rejects.toThrow(RangeError);
    expect(await counts()).toEqual([9, 9]);
  });

  it('reserves exactly what fits when 60 batches of 7 race for a quota of 100', async () => {
    const store = await open();
    const ws = randomUUID();
    const nowMs = Date.now();
    const day = utcDay(nowMs);
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        store.meterCall({
          quotaKey: quotaKey(ws, 'api_score', day),
          dailyLimit: 100,
          quotaExpireAtMs: midnight(),
          keyCountKey: keyQuotaKey(ws, 'api_score', day, `rk_${i % 3}`),
          burstKey: burstKey(ws, `rk_${i % 3}`),
          burstLimit: 1000,
          burstWindowMs: 1000,
          nowMs,
          units: 7,
        }),
      ),
    );
    const counted = results.filter((r) => r.outcome === 'counted');
    expect(counted.length).toBe(14); // 14 x 7 = 98; the 15th would pass 100
    // each counted batch saw its own 7 units: the values after the calls are 7, 14, ..., 98
    expect(counted.map((r) => r.used).sort((a, b) => a - b)).toEqual(Array.from({ length: 14 }, (_, i) => 7 * (i + 1)));
    expect(
      results.filter((r) => r.outcome !== 'counted').every((r) => r.outcome === 'quota_exhausted' && r.used === 98),
    ).toBe(true);
    expect(await store.peek(quotaKey(ws, 'api_score', day))).toBe(98);
    const perKey = await store.peekMany([0, 1, 2].map((k) => keyQuotaKey(ws, 'api_score', day, `rk_${k}`)));
    expect(perKey.reduce((a, b) => a + b, 0)).toBe(98);
  });

  it('records a batch of tallies: hits and requesters add up, also past 500 requesters for one entity', async () => {
    const store = await open();
    const [busy, quiet] = [`asn:${randomUUID()}`, `ip:${randomUUID()}`];
    const w0 = windowStart(Date.now()) - 2 * WINDOW_MS;
    const many = Array.from({ length: 600 }, (_, i) => `198.51.${i >> 8}.${i & 255}`);
    await store.recordLookupBatch(
      [
        { entity: busy, windowStartMs: w0, hits: 700, requesters: many },
        { entity: quiet, windowStartMs: w0, hits: 2, requesters: ['r1'] },
        { entity: quiet, windowStartMs: w0 + WINDOW_MS, hits: 1, requesters: ['r2'] },
      ],
      w0 + WINDOW_MS + 5,
    );
    await store.recordLookupBatch(
      [{ entity: quiet, windowStartMs: w0, hits: 1, requesters: ['r1'] }],
      w0 + WINDOW_MS + 9,
    );
    await store.recordLookupBatch([], w0);
    const range = { sinceMs: w0 - WINDOW_MS, untilMs: w0 + 2 * WINDOW_MS, recentStartsMs: [w0, w0 + WINDOW_MS] };
    const b = await store.readActivity(busy, range);
    expect(b.active).toEqual([{ startMs: w0, hits: 700 }]);
    // Redis counts distinct requesters with a HyperLogLog (standard error 0.81%); the embedded store exactly.
    expect(
      Math.abs(b.recent[0]!.requesters - 600),
      `requesters counted: ${b.recent[0]!.requesters}`,
    ).toBeLessThanOrEqual(18);
    expect(await store.readActivity(quiet, range)).toEqual({
      active: [
        { startMs: w0, hits: 3 },
        { startMs: w0 + WINDOW_MS, hits: 1 },
      ],
      recent: [
        { startMs: w0, hits: 3, requesters: 1 },
        { startMs: w0 + WINDOW_MS, hits: 1, requesters: 1 },
      ],
      distinctRequesters: 2,
    });
  });

  it('records lookups per 10-minute window, splitting exactly at the boundary', async () => {
    const store = await open();
    const ip = `ip:${randomUUID()}`;
    const asn = `asn:${randomUUID()}`;
    const w0 = windowStart(Date.now()) - 3 * WINDOW_MS;
    await store.recordLookups([ip, asn], 'r1', w0);
    await store.recordLookups([ip], 'r2', w0 + 5_000);
    await store.recordLookups([ip], 'r1', w0 + WINDOW_MS - 1); // last millisecond of window 0
    await store.recordLookups([ip, asn], 'r3', w0 + WINDOW_MS); // first millisecond of window 1
    await store.recordLookups([ip], 'r1', w0 + WINDOW_MS + 10);
    await store.recordLookups([], 'r9', w0); // nothing to record

    const span = { sinceMs: w0 - WINDOW_MS, untilMs: w0 + 3 * WINDOW_MS };
    const read = await store.readActivity(ip, { ...span, recentStartsMs: [w0, w0 + WINDOW_MS, w0 + 2 * WINDOW_MS] });
    expect(read).toEqual({
      active: [
        { startMs: w0, hits: 3 },
        { startMs: w0 + WINDOW_MS, hits: 2 },
      ], // windows without lookups left out
      recent: [
        { startMs: w0, hits: 3, requesters: 2 },
        { startMs: w0 + WINDOW_MS, hits: 2, requesters: 2 },
        { startMs: w0 + 2 * WINDOW_MS, hits: 0, requesters: 0 },
      ],
      distinctRequesters: 3, // r1, r2, r3 over both windows, r1 counted once
    });
    expect((await store.readActivity(ip, { ...span, recentStartsMs: [w0 + WINDOW_MS] })).distinctRequesters).toBe(2);
    expect(await store.readActivity(ip, { ...span, recentStartsMs: [] })).toMatchObject({
      recent: [],
      distinctRequesters: 0,
    });
    // the span bounds what `active` lists: [sinceMs, untilMs)
    expect(
      (await store.readActivity(ip, { sinceMs: w0 + WINDOW_MS, untilMs: w0 + 2 * WINDOW_MS, recentStartsMs: [] }))
        .active,
    ).toEqual([{ startMs: w0 + WINDOW_MS, hits: 2 }]);
    expect((await store.readActivity(ip, { sinceMs: w0, untilMs: w0, recentStartsMs: [] })).active).toEqual([]);
    expect(await store.readActivity(asn, { ...span, recentStartsMs: [w0, w0 + WINDOW_MS] })).toEqual({
      active: [
        { startMs: w0, hits: 1 },
        { startMs: w0 + WINDOW_MS, hits: 1 },
      ],
      recent: [
        { startMs: w0, hits: 1, requesters: 1 },
        { startMs: w0 + WINDOW_MS, hits: 1, requesters: 1 },
      ],
      distinctRequesters: 2,
    });
  });

  it('reads a full 7-day span (1008 windows) in one call, listing only the windows that had lookups', async () => {
    const store = await open();
    const entity = `ip:${randomUUID()}`;
    const now = Date.now();
    const current = windowStart(now);
    const weekAgo = current - 1007 * WINDOW_MS;
    await store.recordLookups([entity], 'a', weekAgo);
    await store.recordLookups([entity], 'b', now);
    await store.recordLookups([entity], 'c', now);
    const read = await store.readActivity(entity, {
      sinceMs: weekAgo,
      untilMs: current + WINDOW_MS,
      recentStartsMs: [current],
    });
    expect(read).toEqual({
      active: [
        { startMs: weekAgo, hits: 1 },
        { startMs: current, hits: 2 },
      ],
      recent: [{ startMs: current, hits: 2, requesters: 2 }],
      distinctRequesters: 2,
    });
    const never = await store.readActivity(`ip:${randomUUID()}`, {
      sinceMs: weekAgo,
      untilMs: current,
      recentStartsMs: [current - WINDOW_MS],
    });
    expect(never).toEqual({
      active: [],
      recent: [{ startMs: current - WINDOW_MS, hits: 0, requesters: 0 }],
      distinctRequesters: 0,
    });
  });

  it('refuses misaligned or inconsistent bounds', async () => {
    const store = await open();
    await expect(
      store.readActivity('ip:x', { sinceMs: WINDOW_MS + 7, untilMs: 2 * WINDOW_MS, recentStartsMs: [] }),
    ).rejects.toThrow(RangeError);
    await expect(store.readActivity('ip:x', { sinceMs: 0, untilMs: WINDOW_MS, recentStartsMs: [13] })).rejects.toThrow(
      RangeError,
    );
    await expect(
      store.readActivity('ip:x', { sinceMs: 2 * WINDOW_MS, untilMs: WINDOW_MS, recentStartsMs: [] }),
    ).rejects.toThrow(RangeError);
    await expect(
      store.readActivity('ip:x', { sinceMs: 0, untilMs: WINDOW_MS, recentStartsMs: [WINDOW_MS] }),
    ).rejects.toThrow(RangeError);
  });

  it('answers ping while the backend is up', async () => {
    const store = await open();
    await expect(store.ping()).resolves.toBeUndefined();
  });
});
