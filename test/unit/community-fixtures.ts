/**
 * Shared by the community-*.test.ts files: the two counter stores (real Redis with a random key prefix, and
 * the embedded in-memory store), a hierarchy builder and a fixed UTC clock.
 */
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import type { CounterStore } from '../../src/counters/types.ts';
import { createRedisCounterStore } from '../../src/counters/redis.ts';
import { createEmbeddedCounterStore } from '../../src/counters/embedded.ts';
import { DIMENSION_CODES, type DimensionCode, type Hierarchy } from '../../src/domain/network/types.ts';

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

async function embeddedStore(): Promise<CounterStore> {
  const store = await createEmbeddedCounterStore({});
  closers.push(() => store.close());
  return store;
}

export const STORES: Array<[string, () => Promise<CounterStore>]> = [
  ['redis', redisStore],
  ['embedded', embeddedStore],
];

/** 2026-06-17 12:00 UTC: a window boundary, so `T0 + k * WINDOW_MS` is the start of a window. */
export const T0 = Date.UTC(2026, 5, 17, 12, 0);

/** A public-looking IPv4 hierarchy with a subnet and an AS; `entity` keys as the network index builds them. */
export function hierarchy(ip: string, subnet: string | null, asn: string | null): Hierarchy {
  const keys: Partial<Record<DimensionCode, string | null>> = { ip, subnet, asn };
  return {
    ip,
    version: 4,
    special: null,
    dimensions: DIMENSION_CODES.map((code) => {
      const key = keys[code];
      return key ? { code, entity: { code, key, name: key, size: 1 }, reason: null } : { code, entity: null, reason: 'not in the test data' };
    }),
    subnetSource: subnet ? 'announced' : 'none',
  };
}

/** A fresh entity key per test, so tests never see each other's counters. */
export const freshIp = () => `ip:${randomUUID()}`;

/** `count` lookups of `entity` at nowMs, requesters from `requesters` in turn, issued together. */
export async function lookups(store: CounterStore, entity: string, count: number, nowMs: number, requesters: string[] = ['r1']): Promise<void> {
  await Promise.all(Array.from({ length: count }, (_, i) => store.recordLookups([entity], requesters[i % requesters.length]!, nowMs)));
}
