/**
 * Redis-only behaviour: expiries really set on the server, the documented key layout, and an outage of a
 * redis-server child process this test owns (killed, then restarted on the same port).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createConnection, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { CounterUnavailableError, type CounterStore } from '../../src/platform/counters/types.ts';
import { createRedisCounterStore } from '../../src/platform/counters/redis.ts';
import {
  COMMUNITY_RETENTION_MS,
  nextUtcMidnightMs,
  quotaKey,
  utcDay,
  windowStart,
  WINDOW_MS,
} from '../../src/platform/counters/keys.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';

describe('redis counter store: expiry and key layout', () => {
  const prefix = `test:${randomUUID()}:`;
  const admin = createClient({ url: REDIS_URL });
  let store: CounterStore;
  beforeAll(async () => {
    await admin.connect();
    store = await createRedisCounterStore(REDIS_URL, { prefix });
  });
  afterAll(async () => {
    await store.close();
    for await (const batch of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
      if (batch.length > 0) await admin.del(batch);
    }
    await admin.close();
  });

  it('sets the quota expiry in the same call, at the given instant', async () => {
    const key = quotaKey(randomUUID(), 'api_score', utcDay(Date.now()));
    const expireAt = nextUtcMidnightMs(Date.now());
    await store.consumeIfBelow(key, 5, expireAt);
    expect(await admin.pExpireTime(prefix + key)).toBe(expireAt);
    expect(await admin.pTTL(prefix + key)).toBeGreaterThan(0);
  });

  it('keeps community windows 7 days + 1 window, under one hash tag per entity', async () => {
    const entity = `ip:${randomUUID()}`;
    const now = Date.now();
    const start = windowStart(now);
    await store.recordLookups([entity], 'requester-1', now);
    const history = `${prefix}cs:{${entity}}:hist`;
    const requesters = `${prefix}cs:{${entity}}:r:${start}`;
    expect(await admin.hGetAll(history)).toEqual({ [String(start)]: '1' });
    expect(await admin.pfCount(requesters)).toBe(1);
    for (const key of [history, requesters]) {
      const ttl = await admin.pTTL(key);
      // lives until window start + retention (as a TTL from the write), i.e. more than 7 days from now
      expect(ttl).toBeGreaterThan(7 * 24 * 3600_000);
      expect(ttl).toBeLessThanOrEqual(start + COMMUNITY_RETENTION_MS - now);
    }
  });

  it('gives burst windows their own key that expires after the window', async () => {
    const nowMs = Date.now();
    const start = Math.floor(nowMs / 1000) * 1000;
    await store.hitWindow('rl:{k:abc}', 3, 1000, nowMs);
    const ttl = await admin.pTTL(`${prefix}rl:{k:abc}:${start}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2000);
  });

  it('refuses a prefix that would break the hash tag', async () => {
    await expect(createRedisCounterStore(REDIS_URL, { prefix: 'a{b}:' })).rejects.toThrow(TypeError);
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 200 && !(await accepts(port)); i++) await sleep(25);
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** Settles `p` into a value to assert on; a watchdog turns "still waiting" into a readable failure. */
async function outcome(p: Promise<unknown>): Promise<unknown> {
  return Promise.race([
    p.then(
      (v) => ({ resolved: v }),
      (e: unknown) => e,
    ),
    sleep(10_000, 'still pending after 10 s'),
  ]);
}

describe('redis counter store: outage and recovery', () => {
  let port: number;
  let server: ChildProcess | undefined;
  beforeAll(async () => {
    port = await freePort();
    server = await startRedis(port);
  });
  afterAll(async () => {
    if (server) await kill(server);
  });

  it('rejects every method promptly with CounterUnavailableError while Redis is down, then recovers by itself', async () => {
    const outages: unknown[] = [];
    const store = await createRedisCounterStore(`redis://127.0.0.1:${port}`, {
      maxReconnectDelayMs: 200,
      onOutage: (e) => outages.push(e),
    });
    const key = quotaKey('ws-outage', 'api_score', utcDay(Date.now()));
    const ws = windowStart(Date.now());
    expect(await store.consumeIfBelow(key, 10, nextUtcMidnightMs(Date.now()))).toEqual({ counted: true, used: 1 });
    await store.readActivity('ip:x', { sinceMs: ws, untilMs: ws + WINDOW_MS, recentStartsMs: [ws] }); // loads the script before the outage

    await kill(server!);
    // Each outcome is observed as the call is made: the calls fail on two connections (lookups have their own),
    // so some reject while the test still awaits another, and must never be left unobserved meanwhile.
    const calls: Array<[string, Promise<unknown>]> = [
      ['consumeIfBelow', outcome(store.consumeIfBelow(key, 10, nextUtcMidnightMs(Date.now())))],
      ['peek', outcome(store.peek(key))],
      ['peekMany', outcome(store.peekMany([key, key]))],
      ['hitWindow', outcome(store.hitWindow('rl:{k:x}', 5, 1000, Date.now()))],
      ['recordLookups', outcome(store.recordLookups(['ip:x', 'asn:1'], 'r', Date.now()))],
      [
        'readActivity',
        outcome(store.readActivity('ip:x', { sinceMs: ws, untilMs: ws + WINDOW_MS, recentStartsMs: [ws] })),
      ],
      ['ping', outcome(store.ping())],
    ];
    for (const [name, result] of calls) {
      expect(await result, `${name} during the outage`).toBeInstanceOf(CounterUnavailableError);
    }
    expect(outages.length).toBe(1); // told once, not once per retry

    // Same port, same store object: the background reconnect loop must find the new server.
    server = await startRedis(port);
    let recovered = false;
    for (let i = 0; i < 200 && !recovered; i++) {
      recovered = await store.ping().then(
        () => true,
        () => false,
      );
      if (!recovered) await sleep(50);
    }
    expect(recovered, 'store reconnected to the restarted server').toBe(true);
    // the new server started empty (no persistence) and with an empty script cache: EVALSHA falls back to EVAL
    expect(await store.consumeIfBelow(key, 10, nextUtcMidnightMs(Date.now()))).toEqual({ counted: true, used: 1 });
    const t = Date.now();
    await store.recordLookups(['ip:x'], 'r', t);
    const w = windowStart(t);
    expect(
      (await store.readActivity('ip:x', { sinceMs: w, untilMs: w + WINDOW_MS, recentStartsMs: [w] })).recent[0],
    ).toMatchObject({ hits: 1, requesters: 1 });
    await store.close();
  });

  it('fails creation with CounterUnavailableError when nothing listens', async () => {
    const deadPort = await freePort();
    await expect(
      createRedisCounterStore(`redis://127.0.0.1:${deadPort}`, { connectTimeoutMs: 300 }),
    ).rejects.toBeInstanceOf(CounterUnavailableError);
  });

  it('connects although this process stalls longer than the connect timeout while connecting (start-up parsing)', async () => {
    const creating = createRedisCounterStore(REDIS_URL, { connectTimeoutMs: 300, prefix: `test:${randomUUID()}:` });
    const until = performance.now() + 1_000;
    while (performance.now() < until) {
      /* synchronous work, as the network data parse does at start-up */
    }
    const store = await creating;
    try {
      await expect(store.ping()).resolves.toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
