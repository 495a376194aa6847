/**
 * The per-window cache of community snapshots: one counter read per entity per window, a new
 * snapshot as soon as the boundary passes, a bound on entries, and counter failures passed through uncached.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WINDOW_MS } from '../../src/counters/keys.ts';
import { CounterUnavailableError, type CounterStore } from '../../src/counters/types.ts';
import { CommunitySignals } from '../../src/domain/community/signal.ts';
import { closeStores, freshIp, hierarchy, lookups, STORES, T0 } from './community-fixtures.ts';

afterEach(closeStores);

/** Wraps a store, counting community reads and failing every call while `down` is set. */
function instrument(store: CounterStore) {
  const calls = { readActivity: 0, recordLookups: 0 };
  const state = { down: false };
  const guard = () => { if (state.down) throw new CounterUnavailableError('test outage'); };
  const wrapped: CounterStore = {
    ...store,
    async readActivity(e, r) { calls.readActivity++; guard(); return store.readActivity(e, r); },
    async recordLookups(e, r, t) { calls.recordLookups++; guard(); return store.recordLookups(e, r, t); },
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
    expect(new Set(answers.map((a) => a.metrics.lookups_10m))).toEqual(new Set([2]));
  });

  it('does not serve the previous window once the boundary passes', async () => {
    const { wrapped, calls } = instrument(await open());
    const signals = new CommunitySignals(wrapped);
    const ip = freshIp();
    expect((await signals.read(ip, T0 + 1_000)).metrics.lookups_10m).toBe(0);
    await lookups(wrapped, ip, 3, T0 + 2_000); // same window as the read above: not visible yet
    expect((await signals.read(ip, T0 + WINDOW_MS - 1)).metrics.lookups_10m).toBe(0);
    expect((await signals.read(ip, T0 + WINDOW_MS)).metrics.lookups_10m).toBe(3);
    expect(calls).toMatchObject({ readActivity: 2 });
  });

  it('keeps at most cacheSize entities, forgetting the least recently read', async () => {
    const { wrapped, calls } = instrument(await open());
    const signals = new CommunitySignals(wrapped, { cacheSize: 2 });
    const [a, b, c] = [freshIp(), freshIp(), freshIp()];
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

  it('passes counter outages through unchanged and does not cache them', async () => {
    const { wrapped, state } = instrument(await open());
    const signals = new CommunitySignals(wrapped);
    const ip = freshIp();
    state.down = true;
    await expect(signals.read(ip, T0)).rejects.toBeInstanceOf(CounterUnavailableError);
    await expect(signals.record(hierarchy('192.0.2.1', null, null), 'r', T0)).rejects.toBeInstanceOf(CounterUnavailableError);
    state.down = false;
    await lookups(wrapped, ip, 1, T0 - 1);
    expect((await signals.read(ip, T0)).metrics.lookups_10m).toBe(1);
  });

  it('hands out frozen snapshots, so one caller cannot change what the next one gets', async () => {
    const signals = new CommunitySignals(await open());
    const ip = freshIp();
    const first = await signals.read(ip, T0);
    expect(() => { (first.metrics as { lookups_10m: number }).lookups_10m = 99; }).toThrow(TypeError);
    expect(() => { first.recent_query_windows.push({ label: 'x', hits: 1, requesters: 1 }); }).toThrow(TypeError);
    expect((await signals.read(ip, T0)).metrics.lookups_10m).toBe(0);
  });

  it('records a score call with one counters call', async () => {
    const { wrapped, calls } = instrument(await open());
    await new CommunitySignals(wrapped).record(hierarchy('192.0.2.1', '192.0.2.0/24', 'AS64500'), 'r', T0);
    expect(calls.recordLookups).toBe(1);
  });
});
