/**
 * Which connection a Redis target gets: one Redis, or a Redis Cluster. Apart from both connection files, so the
 * cluster's (which builds on the single one's pieces) is loaded only when a cluster is configured, and neither
 * file imports the other back.
 */
import { connectSingle, type CounterConnection, type RedisTarget } from './redis-connection.ts';

/** A connection with the store's scripts to `target`, connected within connectTimeout; reconnects forever. */
export async function connectCounterConnection(
  target: RedisTarget,
  connectTimeout: number,
  maxDelay: number,
  onOutage: (err: unknown) => void,
): Promise<CounterConnection> {
  if ('url' in target) return connectSingle(target.url, connectTimeout, maxDelay, onOutage);
  const { connectCluster } = await import('./redis-cluster.ts');
  return connectCluster(target.clusterNodes, connectTimeout, maxDelay, onOutage);
}
