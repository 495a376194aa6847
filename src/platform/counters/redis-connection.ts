/**
 * Connections of the Redis counter store (node-redis v5): how one is made (one Redis here, a Redis Cluster in
 * redis-cluster.ts; redis-connect.ts picks), connected within a deadline, closed, and how its failures become
 * CounterUnavailableError.
 */
import { createClient, ErrorReply } from 'redis';
import { CounterUnavailableError } from './types.ts';
import {
  consumeScript,
  cooldownScript,
  hitScript,
  meterScript,
  readActivityScript,
  recordScript,
  seedScript,
} from './redis-scripts.ts';

/** Server replies that mean "Redis is there but can't serve now", as opposed to a bug in our command. */
const UNAVAILABLE_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS)\b/;

export function unavailable(err: unknown): Error {
  if (err instanceof CounterUnavailableError) return err;
  if (err instanceof ErrorReply && !UNAVAILABLE_REPLY.test(err.message)) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new CounterUnavailableError(`redis counter store unavailable: ${detail}`, { cause: err });
}

export function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/**
 * A deadline that counts only time in which this process could have handled the reply. At start-up
 * the network data is parsed in synchronous stretches of a second or more; a plain timer that
 * expired during one fired before the already-arrived connection was even read, and four servers
 * starting at once on a 2-core machine failed with "not reachable" from a reachable Redis. Here a
 * stall counts as one tick.
 */
export function responsiveDeadline(ms: number, tickMs = 50): { expired: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<void>((resolve) => {
    let waited = 0;
    let last = performance.now();
    timer = setInterval(() => {
      const now = performance.now();
      waited += Math.min(now - last, tickMs * 2);
      last = now;
      if (waited >= ms) resolve();
    }, tickMs);
  });
  return { expired, cancel: () => clearInterval(timer) };
}

export const COUNTER_SCRIPTS = {
  consume: consumeScript,
  cooldown: cooldownScript,
  hit: hitScript,
  meter: meterScript,
  record: recordScript,
  readActivity: readActivityScript,
  seed: seedScript,
};
type RedisClient = ReturnType<typeof newClient>;

/** Where the counters live: one Redis (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES, its seed nodes). */
export type RedisTarget = { url: string } | { clusterNodes: string[] };

export function redisTargetOf(config: {
  redisUrl?: string | undefined;
  redisClusterNodes?: string[] | undefined;
}): RedisTarget | undefined {
  if (config.redisClusterNodes?.length) return { clusterNodes: config.redisClusterNodes };
  if (config.redisUrl) return { url: config.redisUrl };
  return undefined;
}

export function describeTarget(target: RedisTarget): string {
  return 'url' in target ? redact(target.url) : `cluster ${target.clusterNodes.map(redact).join(',')}`;
}

type Script<K extends keyof typeof COUNTER_SCRIPTS> = RedisClient[K];

/** What the store needs of a connection, whether to one Redis or to a cluster (where each call goes to its slot). */
export interface CounterConnection {
  readonly isReady: boolean;
  consume: Script<'consume'>;
  hit: Script<'hit'>;
  cooldown: Script<'cooldown'>;
  meter: Script<'meter'>;
  record: Script<'record'>;
  readActivity: Script<'readActivity'>;
  seed: Script<'seed'>;
  get(key: string): Promise<string | null>;
  mGet(keys: string[]): Promise<Array<string | null>>;
  ping(): Promise<unknown>;
  close(): Promise<void>;
  destroy(): void;
}

function newClient(url: string, connectTimeout: number, maxDelay: number) {
  return createClient({
    url,
    disableOfflineQueue: true,
    scripts: COUNTER_SCRIPTS,
    socket: {
      connectTimeout,
      // Never give up: exponential backoff from 50 ms, capped, with jitter so many processes don't stampede.
      reconnectStrategy: (retries: number) =>
        Math.min(50 * 2 ** Math.min(retries, 16), maxDelay) + Math.floor(Math.random() * 50),
    },
  });
}

/**
 * One connection with the store's scripts, connected within connectTimeout (a wrong URL should fail start-up,
 * not hang it). No offline queue: a command issued while disconnected fails at once instead of waiting; the
 * reconnect loop never gives up. `onError` gets every 'error' event (without a listener one would crash us).
 */
export async function connectClient(
  url: string,
  connectTimeout: number,
  maxDelay: number,
  onError: (err: unknown) => void,
): Promise<RedisClient> {
  const client = newClient(url, connectTimeout, maxDelay);
  client.on('error', onError);
  const deadline = responsiveDeadline(connectTimeout);
  try {
    await Promise.race([
      client.connect(),
      deadline.expired.then(() => {
        throw new CounterUnavailableError(`redis ${redact(url)} not reachable within ${connectTimeout} ms`);
      }),
    ]);
  } catch (err) {
    client.destroy();
    throw unavailable(err);
  } finally {
    deadline.cancel();
  }
  return client;
}

/** Closes any node-redis client (the store's, the invalidation subscriber). */
export async function closeClient(client: {
  isOpen: boolean;
  isReady: boolean;
  close(): Promise<unknown>;
  destroy(): void;
}): Promise<void> {
  if (!client.isOpen) return;
  // close() waits for in-flight replies; when Redis is down there are none to wait for, so destroy.
  if (client.isReady) await client.close().catch(() => client.destroy());
  else client.destroy();
}

/** One Redis as a CounterConnection; `onOutage` is told once per outage (the first error after being ready). */
export async function connectSingle(
  url: string,
  connectTimeout: number,
  maxDelay: number,
  onOutage: (err: unknown) => void,
): Promise<CounterConnection> {
  let healthy = false;
  const client = await connectClient(url, connectTimeout, maxDelay, (err) => {
    if (healthy) {
      healthy = false;
      onOutage(err);
    }
  });
  client.on('ready', () => {
    healthy = true;
  });
  healthy = client.isReady;
  return {
    get isReady() {
      return client.isReady;
    },
    consume: client.consume.bind(client),
    hit: client.hit.bind(client),
    cooldown: client.cooldown.bind(client),
    meter: client.meter.bind(client),
    record: client.record.bind(client),
    readActivity: client.readActivity.bind(client),
    seed: client.seed.bind(client),
    get: (key) => client.get(key),
    mGet: (keys) => client.mGet(keys) as Promise<Array<string | null>>,
    ping: () => client.ping(),
    close: async () => {
      healthy = false;
      await closeClient(client);
    },
    destroy: () => client.destroy(),
  };
}
