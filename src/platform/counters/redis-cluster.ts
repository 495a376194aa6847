/**
 * The counter store's connection to a Redis Cluster (node-redis createCluster). Every script and multi-key
 * command of the store names keys of one hash tag, so each runs on one slot, on that slot's master.
 *
 * Failover: node-redis re-reads the slot map only when a node answers MOVED or ASK. A master that dies answers
 * nothing, so its slots stay mapped to the dead address and every call for them fails (at once: no offline
 * queue) for good, even after its replica has taken over. So here a call that fails for want of a connection
 * asks the cluster for its slot map again (at most one such refresh at a time, and not more often than every
 * REDISCOVER_EVERY_MS): while the replica is not yet promoted the map is unchanged and calls keep failing
 * closed; the first refresh after the promotion sends them to the new master (docs/operations.md, "Redis
 * Cluster"). A call whose slot's master is not connected fails before it is sent, and a refresh that waits on a
 * node that never answers is freed (redis-cluster-masters.ts, docs/decisions/0066).
 */
import { createCluster, ErrorReply } from 'redis';
import { dropStuckConnections, masterReady } from './redis-cluster-masters.ts';
import { CounterUnavailableError } from './types.ts';
import {
  COUNTER_SCRIPTS,
  redact,
  responsiveDeadline,
  unavailable,
  type CounterConnection,
} from './redis-connection.ts';

const REDISCOVER_EVERY_MS = 250;
/** A readiness probe of every master gives up after this (a master that went away does not answer). */
const PING_TIMEOUT_MS = 1000;
const OUTAGE_REPORT_EVERY_MS = 10_000;

type ClusterOptions = Parameters<typeof createCluster>[0];

/** Credentials and TLS of the first seed URL apply to every node the cluster names (it names them host:port). */
function nodeDefaults(seed: string, connectTimeout: number, maxDelay: number): ClusterOptions['defaults'] {
  const url = new URL(seed);
  return {
    disableOfflineQueue: true,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    socket: {
      connectTimeout,
      ...(url.protocol === 'rediss:' ? { tls: true as const } : {}),
      reconnectStrategy: (retries: number) =>
        Math.min(50 * 2 ** Math.min(retries, 16), maxDelay) + Math.floor(Math.random() * 50),
    },
  };
}

function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new CounterUnavailableError(`${what} did not answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A failure that says nothing about the slot map: our own command's error, which a refresh cannot fix. */
function isReplyToOurCommand(err: unknown): boolean {
  return err instanceof ErrorReply && !/^(CLUSTERDOWN|TRYAGAIN|MASTERDOWN|READONLY)\b/.test(err.message);
}

export async function connectCluster(
  nodes: string[],
  connectTimeout: number,
  maxDelay: number,
  onOutage: (err: unknown) => void,
): Promise<CounterConnection> {
  const cluster = createCluster({
    rootNodes: nodes.map((url) => ({ url })),
    defaults: nodeDefaults(nodes[0]!, connectTimeout, maxDelay),
    scripts: COUNTER_SCRIPTS,
  });
  // Without listeners an 'error' event would crash the process. A node's reconnect loop errors every few
  // hundred ms while it is away: one report per OUTAGE_REPORT_EVERY_MS is enough.
  let reportedAt = Number.NEGATIVE_INFINITY;
  const report = (err: unknown) => {
    if (performance.now() - reportedAt < OUTAGE_REPORT_EVERY_MS) return;
    reportedAt = performance.now();
    onOutage(err);
  };
  cluster.on('error', report);
  cluster.on('node-error', report);

  let refreshing: Promise<void> | null = null;
  let lastRefresh = 0;
  const refreshSlots = () => {
    if (refreshing || performance.now() - lastRefresh < REDISCOVER_EVERY_MS) return;
    lastRefresh = performance.now();
    // rediscover asks this node first and, when it cannot answer, the seed nodes in turn.
    const start =
      cluster.masters.find((m) => m.client?.isReady)?.client ?? cluster.masters.find((m) => m.client)?.client;
    if (!start) return;
    // A re-read ends when the map is read and every master it names is connected: one that does not answer within
    // a connect timeout is dropped, or this re-read (and every later one) would wait for it for good.
    const stuck = setTimeout(() => dropStuckConnections(cluster), connectTimeout);
    refreshing = cluster._slots
      .rediscover(start)
      .catch(report)
      .finally(() => {
        clearTimeout(stuck);
        refreshing = null;
      });
  };
  const refreshOnFailure = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (!isReplyToOurCommand(err)) refreshSlots();
      throw err;
    }
  };
  const call = <T>(firstKey: string, fn: () => Promise<T>): Promise<T> => {
    if (masterReady(cluster, firstKey, report)) return refreshOnFailure(fn);
    refreshSlots();
    return Promise.reject(
      new CounterUnavailableError(`redis cluster: the master of ${firstKey}'s slot is not connected`),
    );
  };

  // The deadline counts only time this process could have read a reply (redis-connection.ts): workers parsing the
  // network data at start-up stall for seconds, and a plain timer failed two workers' start on a reachable cluster.
  const deadline = responsiveDeadline(connectTimeout);
  try {
    await Promise.race([
      cluster.connect(),
      deadline.expired.then(() => {
        throw new CounterUnavailableError(
          `redis cluster ${nodes.map(redact).join(',')} not reachable within ${connectTimeout} ms`,
        );
      }),
    ]);
  } catch (err) {
    cluster.destroy();
    throw unavailable(err);
  } finally {
    deadline.cancel();
  }
  return {
    get isReady() {
      return cluster.isOpen && cluster.masters.every((m) => m.client?.isReady);
    },
    // Each script's first argument is its first key, the one node-redis routes the call by.
    consume: (...a) => call(a[0], () => cluster.consume(...a)),
    hit: (...a) => call(a[0], () => cluster.hit(...a)),
    cooldown: (...a) => call(a[0], () => cluster.cooldown(...a)),
    meter: (...a) => call(a[0], () => cluster.meter(...a)),
    record: (...a) => call(a[0], () => cluster.record(...a)),
    readActivity: (...a) => call(a[0], () => cluster.readActivity(...a)),
    seed: (...a) => call(a[0], () => cluster.seed(...a)),
    get: (key) => call(key, () => cluster.get(key)),
    mGet: (keys) => call(keys[0]!, () => cluster.mGet(keys) as Promise<Array<string | null>>),
    // Ready when every master answers: a shard without a live master is an outage of its workspaces' metering.
    ping: () =>
      refreshOnFailure(() =>
        withDeadline(
          Promise.all(cluster.masters.map(async (m) => (await cluster.nodeClient(m)).ping())),
          PING_TIMEOUT_MS,
          'a redis cluster master',
        ),
      ).then(() => {}),
    close: async () => {
      await cluster.close().catch(() => cluster.destroy());
    },
    destroy: () => cluster.destroy(),
  };
}
