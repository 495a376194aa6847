/**
 * The masters of a node-redis cluster client as the counter store needs them: whether the master of a key's slot can
 * take a call now, and how a slot map re-read that waits on an unreachable node is freed (docs/decisions/0066).
 *
 * node-redis connects to every master a slot map names and re-reads the map only once those connections are made.
 * A node named for the first time that does not answer (a promoted replica that died before this process had sent
 * it anything, so its slots are still assigned to it) never connects, since a node's connection retries for ever:
 * calls for its slots then wait for that connection instead of failing, and every later re-read, node-redis's own
 * after MOVED included, waits behind the first. Measured on six local redis-server processes: calls for such a
 * shard had not answered after 8 s, and went on waiting.
 */
import calculateSlot from 'cluster-key-slot';

/** What is read of node-redis's cluster client (its masters and slot map are public fields). */
type MasterNode = {
  client?: { isReady: boolean; destroy(): void } | undefined;
  connectPromise?: Promise<unknown> | undefined;
};
interface ClusterMasters<N extends MasterNode> {
  slots: ReadonlyArray<{ master: N } | undefined>;
  masters: readonly N[];
  nodeClient(node: N): Promise<unknown>;
}

/**
 * Whether the master serving `key`'s slot is connected. When it is not, a call for it fails closed at once, as with
 * one Redis (no offline queue). A master whose connection was dropped by `dropStuckConnections` gets a new one here
 * (it retries in the background until the node answers).
 */
export function masterReady<N extends MasterNode>(
  cluster: ClusterMasters<N>,
  key: string,
  report: (err: unknown) => void,
): boolean {
  const master = cluster.slots[calculateSlot(key)]?.master;
  if (!master) return false;
  if (master.client?.isReady) return true;
  if (!master.client && !master.connectPromise) cluster.nodeClient(master).catch(report);
  return false;
}

/**
 * Drops the connections to masters still trying their first connect, so a slot map re-read that waits on them
 * finishes (each dropped connection's attempt ends within one reconnect delay). masterReady makes a new one when a
 * call next needs that master.
 */
export function dropStuckConnections<N extends MasterNode>(cluster: ClusterMasters<N>): number {
  let dropped = 0;
  for (const master of cluster.masters) {
    if (!master.connectPromise || master.client?.isReady) continue;
    const client = master.client;
    master.client = undefined;
    master.connectPromise = undefined;
    try {
      client?.destroy();
    } catch {
      // already closed
    }
    dropped++;
  }
  return dropped;
}
