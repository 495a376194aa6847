/**
 * Embedded-only behaviour: counts survive close/reopen and crashes (journal replay), the journal stays
 * compact, and expiry follows the injected clock.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CounterUnavailableError, type CounterStore } from '../../src/platform/counters/types.ts';
import { createEmbeddedCounterStore } from '../../src/platform/counters/embedded.ts';
import { COMMUNITY_RETENTION_MS, windowStart, WINDOW_MS } from '../../src/platform/counters/keys.ts';

const dirs: string[] = [];
function journalFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'counters-'));
  dirs.push(dir);
  return join(dir, 'nested', 'counters.journal');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const FAR = Date.now() + 24 * 3600_000;
const Q = 'rq:{ws:1}:api_score:20260617';
/** The read of one window `w` as the only recent window of its span. */
const around = (w: number) => ({ sinceMs: w, untilMs: w + WINDOW_MS, recentStartsMs: [w] });
const hitsOf = async (store: CounterStore, entity: string, w: number) =>
  (await store.readActivity(entity, around(w))).recent[0]!.hits;

describe('embedded counter store: persistence', () => {
  it('keeps quota and community counts across close and reopen', async () => {
    const file = journalFile();
    const now = Date.now();
    const w = windowStart(now);
    const a = await createEmbeddedCounterStore({ file });
    for (let i = 0; i < 3; i++) await a.consumeIfBelow(Q, 10, FAR);
    await a.recordLookups(['ip:1.2.3.4', 'asn:1'], 'r1', now);
    await a.recordLookups(['ip:1.2.3.4'], 'r2', now);
    await a.close();

    const b = await createEmbeddedCounterStore({ file });
    expect(await b.peek(Q)).toBe(3);
    expect(await b.consumeIfBelow(Q, 4, FAR)).toEqual({ counted: true, used: 4 });
    expect(await b.consumeIfBelow(Q, 4, FAR)).toEqual({ counted: false, used: 4 });
    expect(await b.readActivity('ip:1.2.3.4', around(w))).toEqual({
      active: [{ startMs: w, hits: 2 }],
      recent: [{ startMs: w, hits: 2, requesters: 2 }],
      distinctRequesters: 2,
    });
    expect(await hitsOf(b, 'asn:1', w)).toBe(1);
    await b.close();
  });

  it('keeps a cooldown across a crash: a restart does not free a mail cooldown early', async () => {
    const file = journalFile();
    const crashed = await createEmbeddedCounterStore({ file });
    expect((await crashed.claimCooldown('rl:{mail:x}:cool:verify', 60_000)).claimed).toBe(true); // never closed
    const next = await createEmbeddedCounterStore({ file });
    const again = await next.claimCooldown('rl:{mail:x}:cool:verify', 60_000);
    expect(again.claimed).toBe(false);
    expect(again.retryAfterMs).toBeGreaterThan(0);
    await next.close();
  });

  it('recovers everything written by an instance that never closed (crash)', async () => {
    const file = journalFile();
    const now = Date.now();
    const crashed = await createEmbeddedCounterStore({ file });
    await crashed.consumeIfBelow(Q, 10, FAR);
    await crashed.consumeIfBelow(Q, 10, FAR);
    await crashed.recordLookups(['ip:9.9.9.9'], 'r1', now);
    // no close(): the next instance reads what the first one left in the file

    const next = await createEmbeddedCounterStore({ file });
    expect(await next.peek(Q)).toBe(2);
    expect(await hitsOf(next, 'ip:9.9.9.9', windowStart(now))).toBe(1);
    await next.close();
  });

  it("recovers a batch's units after a crash: a metered call of 7 units replays as 7", async () => {
    const file = journalFile();
    const now = Date.now();
    const keyCount = `${Q}:k:rk_a`;
    const crashed = await createEmbeddedCounterStore({ file });
    const meter = (store: CounterStore, units: number) =>
      store.meterCall({
        quotaKey: Q,
        dailyLimit: 10,
        quotaExpireAtMs: FAR,
        keyCountKey: keyCount,
        burstKey: 'rl:{ws:1}:k:rk_a',
        burstLimit: 100,
        burstWindowMs: 1000,
        nowMs: now,
        units,
      });
    expect((await meter(crashed, 7)).outcome).toBe('counted');
    expect((await meter(crashed, 1)).outcome).toBe('counted');
    const next = await createEmbeddedCounterStore({ file }); // the first one never closed
    expect(await next.peekMany([Q, keyCount])).toEqual([8, 8]);
    expect(await meter(next, 3)).toMatchObject({ outcome: 'quota_exhausted', used: 8 });
    await next.close();
  });

  it('recovers the writes of a process killed with SIGKILL', async () => {
    const file = journalFile();
    const storeModule = resolve('src/platform/counters/embedded.ts');
    const script = `
      import { createEmbeddedCounterStore } from ${JSON.stringify(storeModule)};
      const s = await createEmbeddedCounterStore({ file: ${JSON.stringify(file)} });
      for (let i = 0; i < 5; i++) await s.consumeIfBelow(${JSON.stringify(Q)}, 100, ${FAR});
      process.kill(process.pid, 'SIGKILL');`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(child.signal, child.stderr).toBe('SIGKILL');

    const after = await createEmbeddedCounterStore({ file });
    expect(await after.peek(Q)).toBe(5);
    await after.close();
  });

  it('skips a torn last line and keeps appending cleanly after it', async () => {
    const file = journalFile();
    const a = await createEmbeddedCounterStore({ file });
    await a.consumeIfBelow(Q, 10, FAR);
    await a.close();
    appendFileSync(file, '["q","rq:{ws:1}:api_sco'); // a write cut short by a crash

    const b = await createEmbeddedCounterStore({ file });
    expect(await b.peek(Q)).toBe(1);
    await b.consumeIfBelow(Q, 10, FAR);
    const c = await createEmbeddedCounterStore({ file }); // b never closed
    expect(await c.peek(Q)).toBe(2);
    await c.close();
  });

  it('compacts the journal as it grows, without losing counts', async () => {
    const file = journalFile();
    const a = await createEmbeddedCounterStore({ file, compactAfterBytes: 1024 });
    for (let i = 0; i < 2000; i++) await a.consumeIfBelow(Q, 5000, FAR);
    // 2000 appended lines would take ~100 KB; compaction keeps the file near one snapshot + 1 KB
    expect(statSync(file).size).toBeLessThan(4096);
    const crashed = await createEmbeddedCounterStore({ file });
    expect(await crashed.peek(Q)).toBe(2000);
    await crashed.close();
    // close() leaves a snapshot: one line for the one live counter
    expect(readFileSync(file, 'utf8').trim().split('\n')).toEqual([JSON.stringify(['Q', Q, 2000, FAR])]);
  });

  it('starts empty from a journal of unknown lines rather than refusing to start', async () => {
    const file = journalFile();
    const a = await createEmbeddedCounterStore({ file });
    await a.close();
    writeFileSync(file, 'not json\n{"x":1}\n["zz",1]\n');
    const b = await createEmbeddedCounterStore({ file });
    expect(await b.peek(Q)).toBe(0);
    await b.close();
  });
});

describe('embedded counter store: expiry by the clock', () => {
  it('drops a quota counter at its expireAtMs, also across a restart', async () => {
    const file = journalFile();
    let t = Date.UTC(2026, 5, 17, 23, 0);
    const midnight = Date.UTC(2026, 5, 18);
    const a = await createEmbeddedCounterStore({ file, now: () => t });
    await a.consumeIfBelow(Q, 2, midnight);
    await a.consumeIfBelow(Q, 2, midnight);
    expect(await a.consumeIfBelow(Q, 2, midnight)).toEqual({ counted: false, used: 2 });
    t = midnight;
    expect(await a.peek(Q)).toBe(0);
    expect(await a.consumeIfBelow(Q, 2, midnight + 86_400_000)).toEqual({ counted: true, used: 1 });
    await a.close();

    t = midnight + 86_400_000; // reopened after that day too has ended
    const b = await createEmbeddedCounterStore({ file, now: () => t });
    expect(await b.peek(Q)).toBe(0);
    await b.close();
  });

  it('forgets community windows 7 days + 1 window after they start', async () => {
    let t = Date.UTC(2026, 5, 17, 12, 3);
    const w = windowStart(t);
    const store = await createEmbeddedCounterStore({ now: () => t });
    await store.recordLookups(['ip:1.1.1.1'], 'r1', t);
    t = w + COMMUNITY_RETENTION_MS - 1;
    expect(await hitsOf(store, 'ip:1.1.1.1', w)).toBe(1);
    t = w + COMMUNITY_RETENTION_MS;
    expect(await hitsOf(store, 'ip:1.1.1.1', w)).toBe(0);
    expect((await store.readActivity('ip:1.1.1.1', around(w))).distinctRequesters).toBe(0);
    await store.recordLookups(['ip:1.1.1.1'], 'r2', t + WINDOW_MS); // triggers the periodic prune
    expect(await hitsOf(store, 'ip:1.1.1.1', w)).toBe(0);
    await store.close();
  });

  it('rejects calls after close with CounterUnavailableError', async () => {
    const store = await createEmbeddedCounterStore({});
    await store.close();
    await expect(store.peek(Q)).rejects.toBeInstanceOf(CounterUnavailableError);
    await expect(store.ping()).rejects.toBeInstanceOf(CounterUnavailableError);
  });
});
