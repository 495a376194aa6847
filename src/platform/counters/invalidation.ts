import { createClient } from 'redis';
import type { Logger } from '../log.ts';
import { closeClient } from './redis-connection.ts';

/**
 * Cache invalidation across processes over Redis pub/sub: when a key is revoked or a
 * workspace's tier changes, every process drops its cached copy at once, so the change
 * applies on the next call everywhere (the key cache TTL remains the bound if a message is
 * lost, e.g. during a Redis outage). Without Redis there is one process, which invalidates
 * its own cache directly.
 */
export type InvalidationBus = { publish(message: string): Promise<void>; close(): Promise<void> };

const channel = (prefix: string) => `${prefix}:invalidate`;

export async function subscribeInvalidations(url: string, prefix: string, onMessage: (message: string) => void, log: Logger): Promise<InvalidationBus> {
  const subscriber = createClient({ url, socket: { reconnectStrategy: (retries) => Math.min(2000, 50 * 2 ** retries) } });
  subscriber.on('error', (e) => log.debug('invalidation subscriber error', { err: e }));
  await subscriber.connect();
  await subscriber.subscribe(channel(prefix), onMessage);
  return {
    publish: (message) => publishInvalidation(url, prefix, message),
    close: () => closeClient(subscriber),
  };
}

/** One-shot publish (the CLI uses it; it holds no subscription). Failures are reported, not thrown. */
export async function publishInvalidation(url: string, prefix: string, message: string): Promise<void> {
  const client = createClient({ url, socket: { connectTimeout: 2000, reconnectStrategy: false } });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.publish(channel(prefix), message);
  } finally {
    await client.quit().catch(() => client.destroy());
  }
}
