import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Whether a loopback port can be bound now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * `count` ports that are free together with their cluster bus ports (port + 10000). They are drawn from
 * 10000-22000, so that the bus ports stay below 32768, where Linux's ephemeral range starts: the outgoing connections
 * of the other test files running at once can then never take one between this check and the node's start.
 */
async function clusterPorts(count: number): Promise<number[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 10_000 + Math.floor(Math.random() * 12_000);
    const ports = Array.from({ length: count }, (_, i) => base + i);
    const free = await Promise.all(ports.flatMap((p) => [portFree(p), portFree(p + 10_000)]));
    if (free.every(Boolean)) return ports;
  }
  throw new Error('no free block of ports for a local Redis cluster');
}

/** A node exited at its start: most likely its port (or bus port) was taken since it was found free. */
class PortTaken extends Error {
  constructor(port: number, why = 'is another process') {
    super(`redis-server on ${port} ${why}`);
  }
}

export type ClusterNode = {
  port: number;
  id: string;
  role: 'master' | 'replica';
  masterId: string | null;
  /** A master serving at least one slot (one that lost its slots in a failover serves none). */
  servesSlots: boolean;
};

/**
 * A real Redis Cluster on loopback for tests: six `redis-server` processes in cluster mode (3 masters, 3
 * replicas, made by `redis-cli --cluster create`), in a temp dir of their own, nothing kept on disk beyond the
 * nodes' cluster config files. A master can be killed (SIGKILL) to make its replica take over.
 */
/** Every node this process started and that still runs: a test process that ends without stop() (a hook that timed
 *  out) must not leave its nodes running beside the next files. */
const liveNodes = new Set<ChildProcess>();
process.once('exit', () => {
  for (const node of liveNodes) node.kill('SIGKILL');
});

export class LocalRedisCluster {
  private readonly children = new Map<number, ChildProcess>();
  private dir = '';
  ports: number[] = [];

  /** `host:port,...` as REDIS_CLUSTER_NODES takes it. */
  get nodesSetting(): string {
    return this.ports.map((p) => `127.0.0.1:${p}`).join(',');
  }

  private nodeTimeoutMs = 1000;

  async start(nodeTimeoutMs = 1000): Promise<void> {
    this.nodeTimeoutMs = nodeTimeoutMs;
    // The ports were free when drawn, but another process on the machine can bind one (or its bus port) before the
    // node does: that node exits at once, and the whole cluster is started again on other ports.
    for (let attempt = 1; ; attempt++) {
      this.dir = mkdtempSync(path.join(tmpdir(), 'risk-api-cluster-'));
      this.ports = await clusterPorts(6);
      for (const port of this.ports) {
        mkdirSync(path.join(this.dir, String(port)));
        this.spawnNode(port);
      }
      try {
        await Promise.all(this.ports.map((p) => this.waitUp(p)));
        break;
      } catch (err) {
        await this.stop();
        this.children.clear();
        if (attempt === 5 || !(err instanceof PortTaken)) throw err;
      }
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...this.ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
    await this.waitHealthy();
  }

  /** One node in cluster mode; it keeps its identity and role in its directory's nodes.conf across a restart. */
  private spawnNode(port: number): void {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        String(this.nodeTimeoutMs),
        // As docs/operations.md advises: a shard without a master does not stop the others.
        '--cluster-require-full-coverage',
        'no',
        // A master waits this long (5 s by default) before its first full sync to a replica, and a replica that never
        // synced cannot take over (waitHealthy); 0 makes the cluster ready seconds sooner.
        '--repl-diskless-sync-delay',
        '0',
        '--logfile',
        'redis.log',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        path.join(this.dir, String(port)),
      ],
      { stdio: 'ignore' },
    );
    this.children.set(port, child);
    liveNodes.add(child);
    child.once('exit', () => liveNodes.delete(child));
  }

  /** Starts a killed node again on its port, as it was (it rejoins the cluster by itself). */
  async restart(port: number): Promise<void> {
    if (this.running().includes(port)) return;
    this.spawnNode(port);
    await this.waitUp(port);
  }

  /** Until the node on `port` accepts connections; fails at once when it has exited (its log says why). */
  private async waitUp(port: number): Promise<void> {
    const child = this.children.get(port)!;
    const until = Date.now() + 60_000; // a hang's bound: a node starts in milliseconds on a quiet machine
    while (Date.now() < until) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new PortTaken(port, `exited (${child.exitCode ?? child.signalCode}): ${this.logTail(port, 3)}`);
      }
      const up = await new Promise<boolean>((resolve) => {
        const sock = net.createConnection(port, '127.0.0.1');
        sock.once('connect', () => {
          sock.destroy();
          resolve(true);
        });
        sock.once('error', () => resolve(false));
      });
      // the node answering must be this one, not another run's that had the port first
      if (up) {
        const info = await this.cli(port, 'info', 'server').catch(() => '');
        if (info.includes(`process_id:${child.pid}\r`)) return;
        if (/process_id:\d+/.test(info)) throw new PortTaken(port, 'answers from another process (the port was taken)');
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server on ${port} did not start`);
  }

  /** One redis-cli command; a node that accepts but never answers fails it after 10 s instead of holding the test. */
  async cli(port: number, ...args: string[]): Promise<string> {
    const { stdout } = await run('redis-cli', ['-p', String(port), ...args], { timeout: 10_000 });
    return stdout;
  }

  /**
   * Every running node says cluster_state:ok, and every replica has finished its first sync with its master. Redis
   * never promotes a replica that has not synced yet (its log says "Currently unable to failover: Disconnected from
   * master for longer than allowed"): a master killed before that leaves its slots without a master for good. On a quiet
   * machine the failover test killed a master a few seconds after `--cluster create`, before its first sync (deferred
   * 5 s by the default repl-diskless-sync-delay) had run, and no replica was ever promoted.
   */
  async waitHealthy(timeoutMs = 120_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < until) {
      const ports = this.running();
      const [states, replication] = await Promise.all([
        Promise.all(ports.map((p) => this.cli(p, 'cluster', 'info').catch(() => ''))),
        Promise.all(ports.map((p) => this.cli(p, 'info', 'replication').catch(() => ''))),
      ]);
      const replicas = replication.filter((r) => r.includes('role:slave'));
      const synced = replicas.filter((r) => r.includes('master_link_status:up'));
      last = `${states.filter((s) => s.includes('cluster_state:ok')).length}/${ports.length} nodes ok, ${synced.length}/${replicas.length} replicas synced`;
      if (
        states.every((s) => s.includes('cluster_state:ok')) &&
        replicas.length > 0 &&
        synced.length === replicas.length
      )
        return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`local Redis cluster did not become healthy (${last})`);
  }

  /** The last lines of a node's log (why a replica did not take over, when a test fails). */
  logTail(port: number, lines = 12): string {
    try {
      return readFileSync(path.join(this.dir, String(port), 'redis.log'), 'utf8')
        .trim()
        .split('\n')
        .slice(-lines)
        .join('\n');
    } catch {
      return '(no log)';
    }
  }

  /** Ports of the nodes not killed. */
  running(): number[] {
    return [...this.children.entries()].filter(([, c]) => c.exitCode === null && c.signalCode === null).map(([p]) => p);
  }

  /** Process ids of the nodes not killed (the capacity bench reads their CPU time). */
  pids(): number[] {
    return this.running().map((p) => this.children.get(p)!.pid!);
  }

  /** The cluster as a running node sees it (CLUSTER NODES), failed nodes left out. */
  async nodes(): Promise<ClusterNode[]> {
    const text = await this.cli(this.running()[0]!, 'cluster', 'nodes');
    return text
      .trim()
      .split('\n')
      .map((line) => line.split(' '))
      .filter((f) => !f[2]!.includes('fail'))
      .map((f) => ({
        id: f[0]!,
        port: Number(f[1]!.split(':')[1]!.split('@')[0]),
        role: f[2]!.includes('master') ? ('master' as const) : ('replica' as const),
        masterId: f[3] === '-' ? null : f[3]!,
        servesSlots: f.length > 8,
      }));
  }

  /** The port of the master serving `key`'s slot (from CLUSTER NODES: a master's line ends with its slot ranges). */
  async masterOf(key: string): Promise<number> {
    const node = this.running()[0]!;
    const slot = Number((await this.cli(node, 'cluster', 'keyslot', key)).trim());
    for (const line of (await this.cli(node, 'cluster', 'nodes')).trim().split('\n')) {
      const f = line.split(' ');
      if (!f[2]!.includes('master') || f[2]!.includes('fail')) continue;
      for (const range of f.slice(8)) {
        const [from, to = from] = range.split('-').map(Number);
        if (slot >= from! && slot <= to!) return Number(f[1]!.split(':')[1]!.split('@')[0]);
      }
    }
    throw new Error(`no live master serves ${key} (slot ${slot})`);
  }

  /** SIGKILLs the node on `port` (a master: its replica is promoted after the node timeout). */
  async kill(port: number): Promise<void> {
    const child = this.children.get(port);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  async stop(): Promise<void> {
    await Promise.all(this.running().map((p) => this.kill(p)));
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}
