import { createClient, createCluster } from 'redis';
import type { Logger } from '../log.ts';
import { closeClient, type RedisTarget } from './redis-connection.ts';

/**
 * Cache invalidation across processes over Redis pub/sub: when a key is revoked or a
 * workspace's tier changes, every process drops its cached copy at once, so the change
 * applies on the next call everywhere (the key cache TTL remains the bound if a message is
 * lost, e.g. during a Redis outage). Without Redis there is one process, which invalidates
 * its own cache directly. On a Redis Cluster, PUBLISH reaches the subscribers of every node,
 * so the subscriber may sit on any one of them.
 */
export type InvalidationBus = { publish(message: string): Promise<void>; close(): Promise<void> };

const channel = (prefix: string) => `${prefix}:invalidate`;
const reconnectStrategy = (retries: number) => Math.min(2000, 50 * 2 ** retries);

function subscriberFor(target: RedisTarget) {
  if ('url' in target) return createClient({ url: target.url, socket: { reconnectStrategy } });
  return createCluster({
    rootNodes: target.clusterNodes.map((url) => ({ url })),
    defaults: { socket: { reconnectStrategy } },
  });
}

export async function subscribeInvalidations(
  target: RedisTarget,
  prefix: string,
  onMessage: (message: string) => void,
  log: Logger,
): Promise<InvalidationBus> {
  const subscriber = subscriberFor(target);
  subscriber.on('error', (e) => log.debug('invalidation subscriber error', { err: e }));
  await subscriber.connect();
  await subscriber.subscribe(channel(prefix), onMessage);
  return {
    publish: (message) => publishInvalidation(target, prefix, message),
    close: () =>
      'url' in target
        ? closeClient(subscriber as ReturnType<typeof createClient>)
        : (subscriber as ReturnType<typeof createCluster>).close().catch(() => subscriber.destroy()),
  };
}

/** One-shot publish (the CLI uses it; it holds no subscription). Failures are reported, not thrown. */
export async function publishInvalidation(target: RedisTarget, prefix: string, message: string): Promise<void> {
  if ('url' in target) {
    const client = createClient({ url: target.url, socket: { connectTimeout: 2000, reconnectStrategy: false } });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.publish(channel(prefix), message);
    } finally {
      await client.quit().catch(() => client.destroy());
    }
    return;
  }
  const cluster = createCluster({
    rootNodes: target.clusterNodes.map((url) => ({ url })),
    defaults: { socket: { connectTimeout: 2000, reconnectStrategy: false } },
    minimizeConnections: true,
  });
  cluster.on('error', () => {});
  try {
    await cluster.connect();
    await cluster.publish(channel(prefix), message);
  } finally {
    await cluster.close().catch(() => cluster.destroy());
  }
}
