/**
 * The two counter stores every contract-style test runs against: real Redis (a random key
 * prefix, its keys removed on close) and the embedded in-memory store.
 */
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import type { CounterStore } from '../../src/platform/counters/types.ts';
import { createRedisCounterStore } from '../../src/platform/counters/redis.ts';
import { createEmbeddedCounterStore } from '../../src/platform/counters/embedded.ts';
import { LocalRedisCluster } from './redis-cluster.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';
const closers: Array<() => Promise<void>> = [];

/** Call from afterEach: closes every store opened by the test and removes its Redis keys. */
export async function closeStores(): Promise<void> {
  for (const close of closers.splice(0)) await close();
}

async function redisStore(): Promise<CounterStore> {
  const prefix = `test:${randomUUID()}:`;
  const store = await createRedisCounterStore(REDIS_URL, { prefix });
  closers.push(async () => {
    await store.close();
    const admin = createClient({ url: REDIS_URL });
    await admin.connect();
    for await (const batch of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
      if (batch.length > 0) await admin.del(batch);
    }
    await admin.close();
  });
  return store;
}

/** One local Redis Cluster per test file, started by the first cluster store; stopClusters() ends it. */
let cluster: Promise<LocalRedisCluster> | null = null;

export async function stopClusters(): Promise<void> {
  const c = cluster;
  cluster = null;
  await (await c)?.stop();
}

async function clusterStore(): Promise<CounterStore> {
  cluster ??= (async () => {
    const c = new LocalRedisCluster();
    await c.start();
    return c;
  })();
  const c = await cluster;
  const store = await createRedisCounterStore(
    { clusterNodes: c.ports.map((p) => `redis://127.0.0.1:${p}`) },
    { prefix: `test:${randomUUID()}:` },
  );
  closers.push(() => store.close());
  return store;
}

async function embeddedStore(): Promise<CounterStore> {
  const store = await createEmbeddedCounterStore({});
  closers.push(() => store.close());
  return store;
}

export const STORES: Array<[string, () => Promise<CounterStore>]> = [
  ['redis', redisStore],
  // Every script and multi-key read on a real cluster: a command naming keys of two slots fails there (CROSSSLOT).
  ['redis-cluster', clusterStore],
  ['embedded', embeddedStore],
];
