/**
 * Capacity model, measured (docs/scaling.md), in one command that ends with the model's prediction beside the
 * measurement. Per call, from one service process on PostgreSQL + a local Redis Cluster (six redis-server
 * processes, 3 masters): `score`, `rate` and `report`, each with the service's CPU, the Redis commands and Redis CPU,
 * PostgreSQL's CPU and rows written, and the load generator's CPU; `score` also on the embedded default (PGlite and
 * the counters inside the one process). From the one-process `score` row it predicts the req/s of WORKERS=2 on this
 * machine, then measures it. The CPU of everything else on the machine during each window is printed too: above
 * OTHER_WORK_LIMIT the check says it is not valid. Writes bench/results/capacity-latest.md.
 *
 *   npm run bench:capacity            (CAPACITY_IPS=100000 CAPACITY_SECONDS=20 by default)
 *   npm run bench:capacity:quiet      (20,000 IPs, 15 s per row: a few minutes on a quiet machine)
 *
 * Exits 1 when other work took more than OTHER_WORK_LIMIT of the machine in any window (the file says so too).
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { LocalRedisCluster } from '../test/helpers/redis-cluster.ts';
import { embeddedBackend, postgresBackend, serviceEnv } from './backends.ts';
import {
  backendsOf,
  finishedChildrenTicks,
  machineTicks,
  redisCommands,
  rowsWritten,
  TICKS,
  ticksOf,
  treePids,
} from './capacity-probes.ts';
import { buildService, startScriptEnv, startServer, stop, stopAll } from './children.ts';
import { buildDataset } from './dataset.ts';
import { measure } from './load.ts';
import { requestsOf, scenarios, type Request } from './scenarios.ts';
import { seed } from './seed.ts';
import { verdict } from './capacity-verdict.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const IPS = Number(process.env.CAPACITY_IPS ?? 100_000);
const SECONDS = Number(process.env.CAPACITY_SECONDS ?? 20);
const CONNECTIONS = 32;
const KEYS = 16;
/** The share of a core a part is planned at: headroom for bursts, GC and failover. */
const UTILISATION = 0.7;
/** Other work on the machine, in % of all its cores, above which a window's figures are not the service's alone. */
const OTHER_WORK_LIMIT = 10;

type Row = {
  label: string;
  workers: number;
  rps: number;
  p99: number;
  failed: number;
  serverUs: number;
  redisOps: number;
  redisUs: number;
  pgUs: number;
  pgRows: number;
  loadUs: number;
  /** Everything else the machine ran during the window, in % of all its cores. */
  otherPct: number;
};

/** What the window reads besides the service: the cluster and the database, absent on the embedded default. */
type Stores = { cluster: LocalRedisCluster; dbUrl: string } | null;

async function measureWindow(
  label: string,
  workers: number,
  pid: number,
  baseUrl: string,
  requests: Request[],
  stores: Stores,
): Promise<Row> {
  await measure(baseUrl, requests, { connections: CONNECTIONS, durationS: 3 }); // warm-up
  await new Promise((r) => setTimeout(r, 1500)); // the warm-up's statistics reach pg_stat
  const server = treePids(pid);
  const redis = stores ? stores.cluster.pids() : [];
  const postgres = stores ? await backendsOf(stores.dbUrl) : [];
  // A process that exits during the window takes its ticks with it; one that starts counts from 0.
  const sum = (pids: number[]) => pids.reduce((a, p) => a + ticksOf(p), 0);
  const read = async () => ({
    server: sum(server),
    redis: sum(redis),
    pg: sum(postgres),
    load: finishedChildrenTicks(),
    self: ticksOf(process.pid),
    cmds: stores ? await redisCommands(stores.cluster) : 0,
    rows: stores ? await rowsWritten(stores.dbUrl) : 0,
    machine: machineTicks(),
  });
  const before = await read();
  const m = await measure(baseUrl, requests, { connections: CONNECTIONS, durationS: SECONDS });
  await new Promise((r) => setTimeout(r, 1500));
  const after = await read();
  const n = Math.max(1, m.requests);
  const us = (ticks: number) => ((ticks / TICKS) * 1e6) / n;
  const ours = (['server', 'redis', 'pg', 'load', 'self'] as const).reduce((a, k) => a + after[k] - before[k], 0);
  const machine = { busy: after.machine.busy - before.machine.busy, total: after.machine.total - before.machine.total };
  return {
    label,
    workers,
    rps: m.rps,
    p99: m.p99,
    failed: m.failed,
    serverUs: us(after.server - before.server),
    redisOps: (after.cmds - before.cmds) / n,
    redisUs: us(after.redis - before.redis),
    pgUs: us(after.pg - before.pg),
    pgRows: (after.rows - before.rows) / n,
    loadUs: us(after.load - before.load),
    otherPct: Math.max(0, (100 * (machine.busy - ours)) / Math.max(1, machine.total)),
  };
}

/** Starts the service, measures each request list in turn on it, stops it. */
async function rows(
  workers: number,
  env: Record<string, string>,
  entry: string,
  lists: Array<[label: string, requests: Request[]]>,
  stores: Stores,
): Promise<Row[]> {
  const { child, baseUrl } = await startServer(
    `service-w${workers}`,
    entry,
    { ...env, WORKERS: String(workers) },
    '/readyz',
    ROOT,
  );
  try {
    const out: Row[] = [];
    for (const [label, requests] of lists)
      out.push(await measureWindow(label, workers, child.proc.pid!, baseUrl, requests, stores));
    return out;
  } finally {
    await stop(child);
  }
}

const f = (x: number, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

function model(score: Row): string {
  const lines = ['| score calls/s | service cores | Redis shards (masters) | PostgreSQL cores |', '|---|---|---|---|'];
  for (const rate of [1_000, 10_000, 100_000]) {
    const cores = (usPerCall: number) => Math.max(1, Math.ceil((rate * usPerCall) / 1e6 / UTILISATION));
    lines.push(`| ${f(rate)} | ${f(cores(score.serverUs))} | ${f(cores(score.redisUs))} | ${f(cores(score.pgUs))} |`);
  }
  return lines.join('\n');
}

/**
 * WORKERS=2 on this machine from the one-process score row: the cores are shared by the two service processes,
 * Redis, PostgreSQL and the load generator, so a call costs all of them; no more than the two processes, nor the
 * load generator's one thread, can do.
 */
function predict(one: Row, cores: number): { rps: number; limit: string } {
  const limits: Array<[string, number]> = [
    [`the machine's ${cores} cores`, (cores * 1e6) / (one.serverUs + one.redisUs + one.pgUs + one.loadUs)],
    ['the two service processes', (2 * 1e6) / one.serverUs],
    ["the load generator's one thread", 1e6 / Math.max(1, one.loadUs)],
  ];
  const [limit, rps] = limits.reduce((a, b) => (b[1] < a[1] ? b : a));
  return { rps, limit };
}

async function main() {
  const cores = availableParallelism();
  const loadAtStart = loadavg()[0]!;
  const cluster = new LocalRedisCluster();
  const backend = await postgresBackend({ label: 'capacity' });
  const embedded = embeddedBackend();
  try {
    await cluster.start(2000);
    const pepper = randomBytes(32).toString('hex');
    const data = await buildDataset(IPS);
    const seeded = await seed({ databaseUrl: backend.databaseUrl, dataDir: backend.dataDir, pepper }, data, KEYS, KEYS);
    const seededEmbedded = await seed({ dataDir: embedded.dataDir, pepper }, data, KEYS, KEYS);
    const entry = buildService(ROOT);
    const { REDIS_URL: _single, ...rest } = backend.env;
    const env = startScriptEnv(
      ROOT,
      serviceEnv({ ...rest, API_KEY_PEPPER: pepper, REDIS_CLUSTER_NODES: cluster.nodesSetting }),
    );
    const envEmbedded = startScriptEnv(ROOT, serviceEnv({ ...embedded.env, API_KEY_PEPPER: pepper }));
    const all = scenarios('');
    const list = (name: 'score-rest' | 'rate' | 'report', keys: string[]) =>
      requestsOf(all[name], data.ips, keys, 16_384);
    const stores = { cluster, dbUrl: backend.databaseUrl! };

    const [score, rate, report] = await rows(
      1,
      env,
      entry,
      [
        ['score', list('score-rest', seeded.keys)],
        ['rate', list('rate', seeded.keys)],
        ['report', list('report', seeded.keys)],
      ],
      stores,
    );
    const [scoreEmbedded] = await rows(
      1,
      envEmbedded,
      entry,
      [['score, embedded', list('score-rest', seededEmbedded.keys)]],
      null,
    );
    const predicted = predict(score!, cores);
    const [two] = await rows(2, env, entry, [['score', list('score-rest', seeded.keys)]], stores);

    const check = verdict([score!, rate!, report!, scoreEmbedded!, two!], OTHER_WORK_LIMIT);
    const row = (r: Row, backendName: string) =>
      `| ${r.label} | ${backendName} | ${r.workers} | ${f(r.rps)} | ${f(r.p99, 1)} | ${f(r.serverUs)} | ${f(r.redisOps, 2)} | ${f(r.redisUs)} | ${f(r.pgUs)} | ${f(r.pgRows, 3)} | ${f(r.loadUs)} | ${f(r.otherPct)}% | ${r.failed} |`;
    const report_ = `# Capacity run — ${new Date().toISOString().slice(0, 10)}

REST calls, ${f(IPS)} published IPs, ${KEYS} keys in ${KEYS} workspaces, wrk ${CONNECTIONS} connections, ${SECONDS} s per
row, on a ${cores}-core machine (load average ${loadAtStart.toFixed(1)} at the start). PostgreSQL + Redis Cluster: a
local cluster of 3 masters + 3 replicas; embedded: PGlite and the counters inside the service process. µs are CPU
time per call.

| call | backend | WORKERS | req/s | p99 ms | service µs | Redis commands | Redis µs | PostgreSQL µs | PostgreSQL rows written | load generator µs | other work on the machine | failed |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
${row(score!, 'PostgreSQL + Redis Cluster')}
${row(rate!, 'PostgreSQL + Redis Cluster')}
${row(report!, 'PostgreSQL + Redis Cluster')}
${row(scoreEmbedded!, 'embedded')}
${row(two!, 'PostgreSQL + Redis Cluster')}

Predicted for score with WORKERS=2, from the WORKERS=1 score row: **${f(predicted.rps)} req/s** (limited by
${predicted.limit}); measured: **${f(two!.rps)} req/s** (${f((100 * two!.rps) / predicted.rps)}% of the prediction).
${check.text}

Planning each part at ${UTILISATION * 100}% of a core, from the WORKERS=1 score row:

${model(score!)}
`;
    writeFileSync(path.join(ROOT, 'bench/results/capacity-latest.md'), report_);
    console.log(report_);
    // A check on a busy machine is no check: say so where a script or a person running it sees it.
    if (!check.valid) {
      console.error(check.text);
      process.exitCode = 1;
    }
  } finally {
    await stopAll();
    await cluster.stop();
    await backend.remove();
    await embedded.remove();
  }
}

await main();
