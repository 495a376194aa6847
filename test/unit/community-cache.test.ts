/**
 * The per-window cache of community snapshots: one counter read per entity per window, a new
 * snapshot as soon as the boundary passes, a bound on entries, and counter failures passed through uncached.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WINDOW_MS } from '../../src/platform/counters/keys.ts';
import { CounterUnavailableError, type CounterStore, type LookupTally } from '../../src/platform/counters/types.ts';
import { CommunitySignals } from '../../src/domain/community/signal.ts';
import { closeStores, freshIp, stopClusters, hierarchy, lookups, STORES, T0 } from './community-fixtures.ts';

afterEach(closeStores);
afterAll(stopClusters); // the file's Redis Cluster: left running, it outlived the file

/** Wraps a store, counting community reads and failing every call while `down` is set. */
function instrument(store: CounterStore) {
  const calls = { readActivity: 0, recordLookupBatch: 0, tallies: [] as LookupTally[][] };
  const state = { down: false };
  const guard = () => {
    if (state.down) throw new CounterUnavailableError('test outage');
  };
  const wrapped: CounterStore = {
    ...store,
    async readActivity(e, r) {
      calls.readActivity++;
      guard();
      return store.readActivity(e, r);
    },
    async recordLookupBatch(b, t) {
      calls.recordLookupBatch++;
      calls.tallies.push([...b]);
      guard();
      return store.recordLookupBatch(b, t);
    },
  };
  return { wrapped, calls, state };
}

describe.each(STORES)('community cache: %s', (_name, open) => {
  it('reads the counters once per entity per window, however many calls (also concurrent)', async () => {
    const { wrapped, calls } = instrument(await open());
    const signals = new CommunitySignals(wrapped);
    const ip = freshIp();
    await lookups(wrapped, ip, 2, T0 - WINDOW_MS);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => signals.read(ip, T0 + i * 1000)));
    for (let i = 0; i < 30; i++) await signals.read(ip, T0 + WINDOW_MS - 1);
    expect(calls).toMatchObject({ readActivity: 1 });
    expect(new Set(answers.map((a) => a.lookups10m))).toEqual(new Set([2]));
  });

  it('does not serve the previous window once the boundary passes', async () => {
    const { wrapped, calls } = instrument(await open());
    const signals = new CommunitySignals(wrapped);
    const ip = freshIp();
    expect((await signals.read(ip, T0 + 1_000)).lookups10m).toBe(0);
    await lookups(wrapped, ip, 3, T0 + 2_000); // same window as the read above: not visible yet
    expect((await signals.read(ip, T0 + WINDOW_MS - 1)).lookups10m).toBe(0);
    expect((await signals.read(ip, T0 + WINDOW_MS)).lookups10m).toBe(3);
    expect(calls).toMatchObject({ readActivity: 2 });
  });

  it('keeps at most cacheSize entities with activity, forgetting the least recently read', async () => {
    const { wrapped, calls } = instrument(await open());
    const signals = new CommunitySignals(wrapped, { cacheSize: 2 });
    const [a, b, c] = [freshIp(), freshIp(), freshIp()];
    for (const ip of [a, b, c]) await lookups(wrapped, ip, 1, T0 - WINDOW_MS); // not quiet: quiet ones have their own set
    await signals.read(a, T0);
    await signals.read(b, T0);
    await signals.read(a, T0); // a is now the most recent
    await signals.read(c, T0); // evicts b
    expect(calls.readActivity).toBe(3);
    await signals.read(a, T0);
    expect(calls.readActivity).toBe(3);
    await signals.read(b, T0);
    expect(calls.readActivity).toBe(4);
  });

  it('remembers at most quietCapacity quiet entities per window: one counter read each, read again after the boundary', async () => {
    const { wrapped, calls } = instrument(await open());
    const signals = new CommunitySignals(wrapped, { cacheSize: 1, quietCapacity: 2 });
    const [a, b, c, busy] = [freshIp(), freshIp(), freshIp(), freshIp()];
    await lookups(wrapped, busy, 1, T0 - WINDOW_MS);
    for (const ip of [a, b, c, busy]) await signals.read(ip, T0); // 4 reads; busy pushes c out of the 1-entry cache
    expect(calls.readActivity).toBe(4);
    const again = await Promise.all([a, b].map((ip) => signals.read(ip, T0 + 60_000)));
    expect(calls.readActivity, 'a and b are remembered as quiet').toBe(4);
    expect(again.map((s) => s.label)).toEqual(['quiet', 'quiet']);
    await signals.read(c, T0 + 60_000);
    expect(calls.readActivity, 'c is past the capacity of 2, and no longer in the cache').toBe(5);
    await lookups(wrapped, a, 3, T0 + 2 * 60_000); // visible once its window (T0's) completes
    expect((await signals.read(a, T0 + WINDOW_MS)).lookups10m, 'not stuck quiet after the boundary').toBe(3);
    expect(calls.readActivity).toBe(6);
  });

  it('passes counter outages through unchanged and does not cache them', async () => {
    const { wrapped, state } = instrument(await open());
    const signals = new CommunitySignals(wrapped);
    const ip = freshIp();
    state.down = true;
    await expect(signals.read(ip, T0)).rejects.toBeInstanceOf(CounterUnavailableError);
    await expect(signals.record(hierarchy('192.0.2.1', null, null), 'r', T0)).rejects.toBeInstanceOf(
      CounterUnavailableError,
    );
    state.down = false;
    await lookups(wrapped, ip, 1, T0 - 1);
    expect((await signals.read(ip, T0)).lookups10m).toBe(1);
  });

  it('hands out frozen snapshots, so one caller cannot change what the next one gets', async () => {
    const signals = new CommunitySignals(await open());
    const ip = freshIp();
    const first = await signals.read(ip, T0);
    expect(() => {
      (first as { lookups10m: number }).lookups10m = 99;
    }).toThrow(TypeError);
    expect(() => {
      first.recentQueryWindows.push({ label: 'x', hits: 1, requesters: 1 });
    }).toThrow(TypeError);
    expect((await signals.read(ip, T0)).lookups10m).toBe(0);
  });

  it('records a score call with one counters call', async () => {
    const { wrapped, calls } = instrument(await open());
    await new CommunitySignals(wrapped).record(hierarchy('192.0.2.1', '192.0.2.0/24', 'AS64500'), 'r', T0);
    expect(calls.recordLookupBatch).toBe(1);
  });

  it('with flushMs, tallies many calls into one counters call, read only once the window has settled', async () => {
    const { wrapped, calls } = instrument(await open());
    const errors: unknown[] = [];
    const signals = new CommunitySignals(wrapped, {
      flushMs: 50,
      settleMs: 1_000,
      onRecordError: (e) => errors.push(e),
    });
    const subnet = `198.51.${Math.floor(Math.random() * 250)}.0/24`;
    const ip = freshIp().slice('ip:'.length); // a unique stand-in address, so no other test's lookups count
    const h = hierarchy(ip, subnet, 'AS64500');
    const at = T0 - 1; // the last millisecond of the window before T0
    const sent = Array.from({ length: 30 }, (_, i) => signals.record(h, `203.0.113.${i % 3}`, at));
    expect(calls.recordLookupBatch).toBe(0); // nothing sent yet: tallied
    await Promise.all(sent);
    expect(calls.recordLookupBatch).toBe(1);
    const byEntity = Object.fromEntries(
      calls.tallies[0]!.map((t) => [t.entity, { hits: t.hits, requesters: [...t.requesters].sort() }]),
    );
    const three = { hits: 30, requesters: ['203.0.113.0', '203.0.113.1', '203.0.113.2'] };
    expect(byEntity).toEqual({ [`ip:${ip}`]: three, [`subnet:${subnet}`]: three, 'asn:AS64500': three });
    // Just after the boundary the ended window has not settled: the snapshot is still the one before it.
    expect((await signals.read(`ip:${ip}`, T0 + 999)).lookups10m).toBe(0);
    expect(await signals.read(`ip:${ip}`, T0 + 1_000)).toMatchObject({ lookups10m: 30, requesters60m: 3 });
    expect(errors).toEqual([]);
  });

  it('sends the last tally on flush (shutdown), and reports a failed batch once however many calls were in it', async () => {
    const { wrapped, calls, state } = instrument(await open());
    const errors: unknown[] = [];
    const signals = new CommunitySignals(wrapped, {
      flushMs: 60_000,
      settleMs: 61_000,
      onRecordError: (e) => errors.push(e),
    });
    const h = hierarchy(freshIp().slice('ip:'.length), null, null);
    void signals.record(h, 'r1', T0);
    await signals.flush();
    expect(calls.recordLookupBatch).toBe(1); // sent at once, not a minute later
    state.down = true;
    const failing = Array.from({ length: 5 }, () => signals.record(h, 'r2', T0));
    await signals.flush();
    for (const f of failing) await expect(f).rejects.toBeInstanceOf(CounterUnavailableError);
    expect(errors).toHaveLength(1);
  });

  it('refuses a settle delay that does not exceed the flush interval', () => {
    expect(() => new CommunitySignals({} as CounterStore, { flushMs: 100, settleMs: 100 })).toThrow(RangeError);
  });
});
