/**
 * The community signal against both counter stores: complete-window snapshots, labels of the windows,
 * the hour's distinct requesters, spikes against the entity's own week, and the state labels.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WINDOW_MS } from '../../src/platform/counters/keys.ts';
import { CommunitySignals } from '../../src/domain/community/signal.ts';
import { closeStores, freshIp, stopClusters, hierarchy, lookups, STORES, T0 } from './community-fixtures.ts';
import { CounterUnavailableError, type CounterStore } from '../../src/platform/counters/types.ts';

afterEach(closeStores);
afterAll(stopClusters); // the file's Redis Cluster: left running, it outlived the file

const W = WINDOW_MS;
const DAY = 24 * 60 * 60 * 1000;
const hits = (s: { recentQueryWindows: Array<{ hits: number }> }) => s.recentQueryWindows.map((w) => w.hits);
const labels = (s: { recentQueryWindows: Array<{ label: string }> }) => s.recentQueryWindows.map((w) => w.label);

describe.each(STORES)('community signal: %s', (_name, open) => {
  it('answers zeros, six labelled windows and quiet for an entity never looked up', async () => {
    const signals = new CommunitySignals(await open());
    const s = await signals.read(freshIp(), T0 + 3 * 60_000); // 12:03 → last complete window 11:50
    expect(s).toEqual({
      ok: true,
      label: 'quiet',
      hasSpike: false,
      lookups10m: 0,
      requesters60m: 0,
      spikeWindows7d: 0,
      recentQueryWindows: ['11:00', '11:10', '11:20', '11:30', '11:40', '11:50'].map((label) => ({
        label,
        hits: 0,
        requesters: 0,
      })),
    });
  });

  it('keeps lookups of the window in progress invisible until the window completes', async () => {
    const store = await open();
    const signals = new CommunitySignals(store);
    const ip = freshIp();
    await lookups(store, ip, 4, T0 + 60_000, ['a', 'b']); // window 12:00
    const during = await signals.read(ip, T0 + 9 * 60_000 + 59_999); // still 12:00–12:10
    expect(during.lookups10m).toBe(0);
    expect(hits(during)).toEqual([0, 0, 0, 0, 0, 0]);

    const after = await signals.read(ip, T0 + W); // 12:10: the same instance must not serve the 12:00 answer
    expect(after).toMatchObject({ lookups10m: 4, requesters60m: 2, spikeWindows7d: 0 });
    expect(after.recentQueryWindows.at(-1)).toEqual({ label: '12:00', hits: 4, requesters: 2 });
    expect(after).toMatchObject({ label: 'active', hasSpike: false });
  });

  it('rolls the six windows across UTC midnight with HH:MM labels, dropping the oldest', async () => {
    const store = await open();
    const signals = new CommunitySignals(store);
    const ip = freshIp();
    const m2320 = Date.UTC(2026, 5, 17, 23, 20);
    for (let k = 0; k < 6; k++) await lookups(store, ip, k + 1, m2320 + k * W + 30_000); // 23:20 … 00:10
    const first = await signals.read(ip, m2320 + 6 * W + 5 * 60_000); // 00:25
    expect(labels(first)).toEqual(['23:20', '23:30', '23:40', '23:50', '00:00', '00:10']);
    expect(hits(first)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(first.lookups10m).toBe(6);

    const next = await signals.read(ip, m2320 + 7 * W); // 00:30
    expect(labels(next)).toEqual(['23:30', '23:40', '23:50', '00:00', '00:10', '00:20']);
    expect(hits(next)).toEqual([2, 3, 4, 5, 6, 0]);
    expect(next.lookups10m).toBe(0);
    expect(next.label).toBe('active');
  });

  it('counts requesters_60m as the union over the hour: one requester in two windows counts once', async () => {
    const store = await open();
    const signals = new CommunitySignals(store);
    const ip = freshIp();
    await lookups(store, ip, 1, T0 - 7 * W, ['old']); // 10:50: older than the hour shown at 12:05
    await lookups(store, ip, 2, T0 - 3 * W, ['r1']); // 11:30
    await lookups(store, ip, 3, T0 - W, ['r1', 'r2']); // 11:50
    const s = await signals.read(ip, T0 + 5 * 60_000);
    expect(s.recentQueryWindows).toEqual([
      { label: '11:00', hits: 0, requesters: 0 },
      { label: '11:10', hits: 0, requesters: 0 },
      { label: '11:20', hits: 0, requesters: 0 },
      { label: '11:30', hits: 2, requesters: 1 },
      { label: '11:40', hits: 0, requesters: 0 },
      { label: '11:50', hits: 3, requesters: 2 },
    ]);
    expect(s).toMatchObject({ lookups10m: 3, requesters60m: 2, spikeWindows7d: 0 });
    expect(s.label).toBe('active');
  });

  it('labels converging when 3 distinct requesters looked the entity up in the hour without a spike', async () => {
    const store = await open();
    const signals = new CommunitySignals(store);
    const two = freshIp();
    const three = freshIp();
    await lookups(store, two, 2, T0 - 5 * W, ['a', 'b']);
    await lookups(store, three, 2, T0 - 5 * W, ['a', 'b']);
    await lookups(store, three, 1, T0 - 2 * W, ['c']);
    expect(await signals.read(two, T0)).toMatchObject({ label: 'active', hasSpike: false });
    const s = await signals.read(three, T0);
    expect(s).toMatchObject({ label: 'converging', hasSpike: false });
    expect(s.requesters60m).toBe(3);
  });

  it('flags a burst of 50 lookups after a quiet week as a spike, and remembers it for the week', async () => {
    const store = await open();
    const signals = new CommunitySignals(store);
    const ip = freshIp();
    await lookups(store, ip, 1, T0 - 6 * DAY, ['early']); // one lookup 6 days ago: a quiet week
    await lookups(store, ip, 50, T0 - W + 1_000, ['x', 'y', 'z']); // window 11:50, three requesters
    const s = await signals.read(ip, T0);
    expect(s).toMatchObject({ label: 'spiking', hasSpike: true });
    expect(s).toMatchObject({ lookups10m: 50, requesters60m: 3, spikeWindows7d: 1 });

    // Six windows later the burst has left the hour but is still one of the week's spikes.
    const later = await signals.read(ip, T0 + 6 * W);
    expect(later).toMatchObject({ label: 'quiet', hasSpike: false });
    expect(later.spikeWindows7d).toBe(1);
  });

  it('never flags one client hammering, nor two; three requesters make the spike, and the number is a setting', async () => {
    const store = await open();
    const signals = new CommunitySignals(store);
    const one = freshIp();
    await lookups(store, one, 500, T0 - W, ['retrying-client']);
    expect(await signals.read(one, T0)).toMatchObject({ label: 'active', hasSpike: false, spikeWindows7d: 0 });
    const two = freshIp();
    await lookups(store, two, 60, T0 - W, ['a', 'b']);
    expect(await signals.read(two, T0)).toMatchObject({ label: 'active', hasSpike: false });
    const three = freshIp();
    await lookups(store, three, 60, T0 - W, ['a', 'b', 'c']);
    expect(await signals.read(three, T0)).toMatchObject({ label: 'spiking', hasSpike: true, spikeWindows7d: 1 });
    const stricter = new CommunitySignals(store, { spikeMinRequesters: 4 });
    expect(await stricter.read(three, T0)).toMatchObject({ label: 'converging', hasSpike: false });
  });

  it('does not flag the same 50 lookups spread over windows, nor 50 in one window over a busy week', async () => {
    const store = await open();
    const signals = new CommunitySignals(store);
    const spread = freshIp();
    for (let k = 1; k <= 5; k++) await lookups(store, spread, 10, T0 - k * W);
    const a = await signals.read(spread, T0);
    expect(a).toMatchObject({ lookups10m: 10, requesters60m: 1, spikeWindows7d: 0 });
    expect(a).toMatchObject({ label: 'active', hasSpike: false });

    // 15 lookups in each of the week's other 1,007 windows: 50 < 4 × 15, so the burst is ordinary for it.
    const busy = freshIp();
    for (let k = 2; k <= 1008; k += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, 1009 - k) }, (_, j) => lookups(store, busy, 15, T0 - (k + j) * W)),
      );
    }
    await lookups(store, busy, 50, T0 - W);
    const b = await signals.read(busy, T0);
    expect(hits(b)).toEqual([15, 15, 15, 15, 15, 50]);
    expect(b).toMatchObject({ lookups10m: 50, requesters60m: 1, spikeWindows7d: 0 });
    expect(b).toMatchObject({ label: 'active', hasSpike: false });
  });

  it('records the IP, its subnet and its AS in one call, each readable under its own key', async () => {
    const store = await open();
    const signals = new CommunitySignals(store);
    const suffix = Math.floor(Math.random() * 1e9);
    const h = hierarchy(`203.0.113.${suffix % 250}`, `203.0.113.0/24#${suffix}`, `AS${suffix}`);
    await signals.record(h, '198.51.100.7', T0 - W);
    await signals.record(h, '198.51.100.8', T0 - W);
    for (const key of [`ip:${h.ip}`, `subnet:203.0.113.0/24#${suffix}`, `asn:AS${suffix}`]) {
      expect(await signals.read(key, T0), key).toMatchObject({ lookups10m: 2, requesters60m: 2 });
    }
  });

  it('gives two processes sharing the counters the same answer', async () => {
    const store = await open();
    const ip = freshIp();
    await lookups(store, ip, 25, T0 - 2 * W, ['p', 'q', 'r']);
    const [one, two] = await Promise.all([
      new CommunitySignals(store).read(ip, T0 + 1),
      new CommunitySignals(store).read(ip, T0 + 9 * 60_000),
    ]);
    expect(one).toEqual(two);
    expect(one).toMatchObject({ label: 'spiking', hasSpike: true });
  });
});

describe('community signal that cannot be read', () => {
  it('answers ok: false, state unavailable, zeros and no windows from readOrUnavailable, and reports the error once', async () => {
    const failure = new CounterUnavailableError('redis counter store unavailable: test');
    const store = { readActivity: () => Promise.reject(failure) } as unknown as CounterStore;
    const reported: unknown[] = [];
    const signals = new CommunitySignals(store, { onReadError: (e) => reported.push(e) });
    await expect(signals.read(freshIp(), T0), 'read itself still rejects').rejects.toBe(failure);
    expect(await signals.readOrUnavailable(freshIp(), T0)).toEqual({
      ok: false,
      label: 'unavailable',
      hasSpike: false,
      lookups10m: 0,
      requesters60m: 0,
      spikeWindows7d: 0,
      recentQueryWindows: [],
    });
    expect(reported).toEqual([failure]);
  });
});
