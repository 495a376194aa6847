/**
 * One contract, two stores: every test here runs against Redis (real server, random key prefix per test) and
 * against the embedded in-memory store, so callers can switch with REDIS_URL and see the same behaviour.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { CounterStore } from '../../src/counters/types.ts';
import { STORES, closeStores } from '../helpers/counter-stores.ts';
import { burstKey, nextUtcMidnightMs, quotaKey, utcDay, windowStart, WINDOW_MS } from '../../src/counters/keys.ts';

afterEach(closeStores);

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
    const key = burstKey(randomUUID());
    const windowMs = 60_000;
    const start = Math.floor(Date.now() / windowMs) * windowMs;
    const resetAtMs = start + windowMs;
    expect(await store.hitWindow(key, 2, windowMs, start)).toEqual({ allowed: true, count: 1, resetAtMs });
    expect(await store.hitWindow(key, 2, windowMs, start + 10)).toEqual({ allowed: true, count: 2, resetAtMs });
    expect(await store.hitWindow(key, 2, windowMs, start + 20)).toEqual({ allowed: false, count: 2, resetAtMs });
    expect(await store.hitWindow(key, 2, windowMs, resetAtMs - 1)).toEqual({ allowed: false, count: 2, resetAtMs });
    // a different key has its own window
    expect(await store.hitWindow(burstKey(randomUUID()), 2, windowMs, start + 30)).toMatchObject({ allowed: true, count: 1 });
    expect(await store.hitWindow(key, 2, windowMs, resetAtMs)).toEqual({ allowed: true, count: 1, resetAtMs: resetAtMs + windowMs });
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

    const read = await store.readWindows(ip, [w0, w0 + WINDOW_MS, w0 + 2 * WINDOW_MS]);
    expect(read.windows).toEqual([
      { startMs: w0, hits: 3, requesters: 2 },
      { startMs: w0 + WINDOW_MS, hits: 2, requesters: 2 },
      { startMs: w0 + 2 * WINDOW_MS, hits: 0, requesters: 0 },
    ]);
    expect(read.distinctRequesters).toBe(3); // r1, r2, r3 over both windows, r1 counted once
    expect((await store.readWindows(ip, [w0 + WINDOW_MS])).distinctRequesters).toBe(2);
    expect(await store.readWindows(ip, [])).toEqual({ windows: [], distinctRequesters: 0 });

    expect(await store.readHits(ip, [w0 - WINDOW_MS, w0, w0 + WINDOW_MS])).toEqual([0, 3, 2]);
    expect(await store.readHits(asn, [w0, w0 + WINDOW_MS])).toEqual([1, 1]);
    expect(await store.readWindows(asn, [w0, w0 + WINDOW_MS])).toMatchObject({ distinctRequesters: 2 });
  });

  it('reads a full 7-day span of windows (1008) in one call', async () => {
    const store = await open();
    const entity = `ip:${randomUUID()}`;
    const now = Date.now();
    const last = windowStart(now);
    const starts = Array.from({ length: 1008 }, (_, i) => last - (1007 - i) * WINDOW_MS);
    await store.recordLookups([entity], 'a', now);
    await store.recordLookups([entity], 'b', now);
    const hits = await store.readHits(entity, starts);
    expect(hits.length).toBe(1008);
    expect(hits[1007]).toBe(2);
    expect(hits.slice(0, 1007).every((h) => h === 0)).toBe(true);
    const read = await store.readWindows(entity, starts);
    expect(read.distinctRequesters).toBe(2);
  });

  it('refuses misaligned window starts', async () => {
    const store = await open();
    await expect(store.readHits('ip:x', [WINDOW_MS + 7])).rejects.toThrow(RangeError);
    await expect(store.readWindows('ip:x', [13])).rejects.toThrow(RangeError);
  });

  it('answers ping while the backend is up', async () => {
    const store = await open();
    await expect(store.ping()).resolves.toBeUndefined();
  });
});
