import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRedisCluster } from '../helpers/redis-cluster.ts';
import { createRedisCounterStore } from '../../src/platform/counters/redis.ts';
import { CounterUnavailableError, type CounterStore } from '../../src/platform/counters/types.ts';
import { eventually, sleep } from '../helpers/eventually.ts';

/**
 * A shard left with no live node, in the one way node-redis could not follow: its master dies, its replica is
 * promoted while this process sends it nothing, then the promoted replica dies too. The slot map this process
 * reads next names a master it has never reached and cannot reach; node-redis waited for that connection for good
 * (calls for the shard hung, and every later slot map re-read queued behind it: docs/decisions/0066). Calls must
 * fail closed at once instead, other shards stay served, and the shard is served again when its nodes return.
 * The store is used directly (no server): nothing else may touch the shard between the kills.
 */
const cluster = new LocalRedisCluster();
let store: CounterStore;
beforeAll(async () => {
  await cluster.start();
  store = await createRedisCounterStore(
    { clusterNodes: cluster.running().map((p) => `redis://127.0.0.1:${p}`) },
    { onOutage: () => {} },
  );
});
afterAll(async () => {
  await store?.close();
  await cluster.stop();
});

const EXPIRES = () => Date.now() + 3_600_000;
/** A bound for a hang, not a timing: a call that has not answered in 10 s is taken as waiting for good. */
const HANG_MS = 10_000;

/** How one call ended: its value, the error's class, or 'hang'. */
async function outcome(call: Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('hang'), HANG_MS);
  });
  const settled = call.then(
    () => 'served',
    (e) => (e instanceof CounterUnavailableError ? 'unavailable' : `error ${String(e)}`),
  );
  return Promise.race([settled, hang]).finally(() => clearTimeout(timer));
}

/** A quota key whose slot is served by `port` (a third of all keys are: a thousand tries find one or none will). */
async function keyOn(port: number): Promise<string> {
  for (let i = 0; i < 1000; i++) {
    const key = `rq:{ws:shard-down-${i}}:api_score:d`;
    if ((await cluster.masterOf(key)) === port) return key;
  }
  throw new Error(`no key served by ${port}:\n${await cluster.cli(port, 'cluster', 'nodes')}`);
}

describe('Redis Cluster: a shard whose promoted replica dies before this process reached it', () => {
  // Each wait below is bounded (a promotion 120 s, twelve calls 10 s each, two restarts 60 s each, the return 120 s):
  // together more than the suite's 300 s, so the test's own bound is their sum.
  it('fails its calls closed at once (no wait for a node that never answers), then serves it when it returns', {
    timeout: 600_000,
  }, async () => {
    const nodes = await cluster.nodes();
    const [master, other] = nodes.filter((n) => n.role === 'master' && n.servesSlots);
    const replica = nodes.find((n) => n.masterId === master!.id)!;
    const key = await keyOn(master!.port);
    const otherKey = await keyOn(other!.port);
    expect(await outcome(store.consumeIfBelow(key, 1000, EXPIRES())), 'the shard before the kill').toBe('served');

    await cluster.kill(master!.port);
    const promoted = await eventually(async () => (await cluster.masterOf(key)) === replica.port, 120_000);
    expect(promoted, `replica not promoted; its log:\n${cluster.logTail(replica.port)}`).toBe(true);
    await cluster.kill(replica.port);

    // Spread over more than the store's connect timeout (2 s), by which a slot map re-read waiting on the dead node
    // must have been freed; each call meanwhile fails closed, none waits.
    const outcomes: string[] = [];
    for (let i = 0; i < 12; i++) {
      outcomes.push(await outcome(store.consumeIfBelow(key, 1000, EXPIRES())));
      await sleep(250);
    }
    expect(outcomes).toEqual(Array(12).fill('unavailable'));
    expect(await outcome(store.consumeIfBelow(otherKey, 1000, EXPIRES())), 'another shard').toBe('served');

    // Both nodes back (empty: they keep nothing on disk): the shard is served again without a new store.
    await cluster.restart(master!.port);
    await cluster.restart(replica.port);
    const back = await eventually(
      async () => (await outcome(store.consumeIfBelow(key, 1000, EXPIRES()))) === 'served',
      120_000,
    );
    expect(back, 'the shard was not served again after its nodes returned').toBe(true);
    expect(await outcome(store.consumeIfBelow(otherKey, 1000, EXPIRES())), 'another shard').toBe('served');
  });
});
