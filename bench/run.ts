/**
 * `npm run bench`: in ONE run, the two floors (bare node:http, bare yoga), the peer (CrowdSec's
 * LAPI, when Debian's `crowdsec` is installed) and the service on the embedded default and on
 * PostgreSQL + Redis, each seeded with a real-sized published summary set, driven by wrk (one
 * thread, 32 connections); prints a markdown table (also saved to bench/results/latest.md).
 * Loopback only; every child and every database/key it made is removed at the end, on failure too,
 * and the whole run has a time limit.
 *
 *   --cpu-prof        profile the service children (bench/profiles/*.cpuprofile; see top-functions.ts)
 *   --ips N           data set size (default 100000)   --duration S   seconds per measured row (default 8)
 *   --connections N   connections of the main rows (default 32)   --wrk-threads N   wrk threads (default 1)
 *   --scenarios a,b   only these service scenarios (e.g. score-rest, to profile one path)
 *   --backends a,b    only these backends (embedded, postgres+redis)
 *   --no-peer         skip the CrowdSec row
 *   --sweep a,b,c     instead: the data-size sweep (bench/sweep.ts) at these seeded IP counts
 *   --targets         only the rows issue 34's targets need (`npm run bench:targets`, a few minutes): the three
 *                     floors, score REST (closed loop and steady rate), GraphQL, MCP and the batches of 1 and 100,
 *                     on both backends; prints every ratio with its terms, saved to bench/results/targets-latest.md
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { buildDataset, prng } from './dataset.ts';
import { seed, type Seeded } from './seed.ts';
import { embeddedBackend, postgresBackend, REDIS_URL, serviceEnv, type Backend } from './backends.ts';
import { buildService, memoryOf, startScriptEnv, startServer, stop, stopAll, type Child } from './children.ts';
import { measure, probe, wrkPath } from './load.ts';
import { cpuWindow, descendantsOf } from './cpu.ts';
import { loopDelayWindow } from './loop-delay.ts';
import { requestsOf, scenarios, type Scenario, type ScenarioName } from './scenarios.ts';
import { loadTable, peerTable, serviceTable, targetsTable, type LoadRow, type ServiceRow } from './report.ts';
import { scoreGraphQLQuery } from './graphql-score.ts';
import { crowdsecInstalled, startCrowdsec, undecidedIps } from './crowdsec.ts';
import { installRules, ruleBodies } from './overrides.ts';
import { runSweep } from './sweep.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    'cpu-prof': { type: 'boolean', default: false },
    ips: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '32' },
    'wrk-threads': { type: 'string', default: '1' },
    scenarios: { type: 'string' },
    backends: { type: 'string' },
    'no-peer': { type: 'boolean', default: false },
    sweep: { type: 'string' },
    targets: { type: 'boolean', default: false },
  },
});
/** The rows of issue 34's targets (report.ts targetsTable): nothing else runs. */
const TARGET_ROWS = ['score-rest', 'score-graphql', 'score-mcp', 'score-batch-1', 'score-batch'];
if (args.targets) {
  args.scenarios ??= TARGET_ROWS.join(',');
  args['no-peer'] = true;
}
const only = (list: string | undefined) => (name: string) => !list || list.split(',').includes(name);
const scenarioWanted = only(args.scenarios);
const backendWanted = only(args.backends);
const IPS = Number(args.ips);
const DURATION_S = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const WRK_THREADS = Number(args['wrk-threads']);
const SWEEP_S = Math.max(2, Math.round(DURATION_S / 2)); // the 1- and 8-connection rows are context, kept short
const WARMUP_S = 2;
const KEY_COUNT = 64; // score's burst limit is 500/s per key on 'enterprise': 64 keys allow 32,000/s
/** Distinct requests a row rotates over (each a different IP where the row has that many). */
const ROTATION = 16_384;
const SWEEP_SIZES = args.sweep ? args.sweep.split(',').map(Number) : null;
// The sweep seeds up to millions of rows per size: its limit grows with what it seeds.
const TIME_LIMIT_MS = SWEEP_SIZES ? (10 + SWEEP_SIZES.reduce((a, n) => a + n, 0) / 25_000) * 60_000 : 25 * 60_000;
const PROFILE_DIR = path.join(ROOT, 'bench', 'profiles');

const log = (msg: string) => console.error(`[bench +${Math.round(process.uptime())}s] ${msg}`);
const backends: Backend[] = [];
const cleanups: Array<() => Promise<void>> = [];
let cleaning: Promise<void> | null = null;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await stopAll();
    for (const c of cleanups) await c().catch((e) => log(`cleanup: ${String(e)}`));
    for (const b of backends) await b.remove().catch((e) => log(`could not remove ${b.name}: ${String(e)}`));
  })();
  return cleaning;
}
const abort = (why: string) => {
  log(why);
  void cleanup().finally(() => process.exit(2));
};
setTimeout(
  () => abort(`time limit of ${Math.round(TIME_LIMIT_MS / 60_000)} min reached: stopping`),
  TIME_LIMIT_MS,
).unref();
process.once('SIGINT', () => abort('interrupted'));
process.once('SIGTERM', () => abort('terminated'));

/** Rows to run: a scenario, its connections and, for a steady-rate row, the requests/s asked. */
type Plan = Array<[ScenarioName, number] | [ScenarioName, number, number]>;
/** Issue 19's tail at a steady rate: score REST's p99 against the floor's at the same rate, same generator. */
const STEADY: [number, number] = [16, 1000];
const FLOOR_PLAN: Plan = [
  ...(args.targets
    ? []
    : ([
        ['floor-http', 1],
        ['floor-http', 8],
      ] as Plan)),
  ['floor-http', CONNECTIONS],
  ['floor-http', ...STEADY],
  ['floor-metered', CONNECTIONS],
  ['floor-metered', ...STEADY],
  ['floor-yoga', CONNECTIONS],
];
const PEER_PLAN: Plan = [
  ['crowdsec-fresh', CONNECTIONS],
  ['crowdsec-decided', CONNECTIONS],
];
// Reads before writes: rate/report grow the database, which the reads should not see.
const SERVICE_PLAN: Plan = (
  [
    ...(args.targets
      ? []
      : ([
          ['score-rest', 1],
          ['score-rest', 8],
        ] as Plan)),
    ['score-rest', CONNECTIONS],
    ['score-rest', ...STEADY],
    ['score-rest-written', CONNECTIONS],
    ['score-graphql', CONNECTIONS],
    // Last of the score rows: the rules it creates stay in force for the rows after it, which do not read them.
    ['score-mcp', CONNECTIONS],
    ['score-batch-1', CONNECTIONS],
    ['score-batch', CONNECTIONS],
    ['score-rest-overrides', CONNECTIONS],
    ['dimensions', CONNECTIONS],
    ['rate', CONNECTIONS],
    ['report', CONNECTIONS],
    // A pipeline's upload, not an interactive call: a few clients at once, each request a 500-line transaction.
    ['report-bulk', 4],
  ] as Plan
).filter(([name]) => scenarioWanted(name));
/** Rows of a service of their own started with WORKERS (PostgreSQL + Redis only: the embedded default is one process). */
// The same closed-loop rows as the one-process score REST's, so its 32-connection row meets a process as warmed as that one's.
const WORKERS_PLAN: Plan = (
  [
    ['score-rest-workers', 1],
    ['score-rest-workers', 8],
    ['score-rest-workers', CONNECTIONS],
  ] as Plan
).filter(([name]) => scenarioWanted(name));

/** Which IPs each row rotates over: `written` (seed.ts) only by the "IPs the workspace wrote about" row, `fresh` (the rest) by the others. */
type IpSets = { fresh: string[]; written: string[]; decided: string[]; undecided: string[] };
function ipsFor(s: Scenario, sets: IpSets): string[] {
  const name = s.name;
  if (s.written) return sets.written;
  if (name === 'crowdsec-decided') return sets.decided;
  if (name === 'crowdsec-fresh') return sets.undecided;
  return sets.fresh;
}

async function runPlan(
  target: string,
  server: Child,
  baseUrl: string,
  plan: Plan,
  all: Record<ScenarioName, Scenario>,
  sets: IpSets,
  keys: string[],
): Promise<LoadRow[]> {
  const rows: LoadRow[] = [];
  for (const [name, connections, ratePerSecond] of plan) {
    const s = all[name];
    // A batch request carries many IPs: as many IPs in all as the other rows rotate over, in fewer requests.
    const rotation = s.ipsPerRequest ? Math.max(256, Math.ceil(ROTATION / s.ipsPerRequest)) : (s.rotation ?? ROTATION);
    const requests = requestsOf(s, ipsFor(s, sets), keys, rotation);
    if (s.overrides) {
      const bodies = ruleBodies(requests.map((r) => (JSON.parse(r.body!) as { ip: string }).ip));
      log(`${target}: creating ${bodies.length} override rules through the API…`);
      log(
        `${target}: ${bodies.length} override rules in force after ${await installRules(baseUrl, keys[0]!, bodies)} ms`,
      );
    }
    const p = await probe(baseUrl, requests[0]!, s.graphql, s.mcp);
    if (!p.ok) {
      log(`${target} ${s.label}: ${p.reason}`);
      rows.push({
        target,
        scenario: s,
        connections,
        ratePerSecond,
        result: { skipped: p.reason },
        cpu: null,
        loop: null,
      });
      continue;
    }
    const durationS = connections === CONNECTIONS || ratePerSecond ? DURATION_S : SWEEP_S;
    const failMarker = s.failMarker ?? (s.graphql ? '"errors"' : s.mcp ? '"isError":true' : null);
    const load = { connections, failMarker, threads: WRK_THREADS, ratePerSecond };
    await measure(baseUrl, requests, { ...load, durationS: WARMUP_S });
    const loopEnd = await loopDelayWindow(baseUrl);
    const cpuUse = cpuWindow(server.proc.pid);
    const result = await measure(baseUrl, requests, { ...load, durationS });
    const cpu = cpuUse(result.requests);
    const loop = await loopEnd();
    const linesPerSecond = s.linesPerRequest
      ? Math.round((result.requests * s.linesPerRequest) / durationS)
      : undefined;
    log(
      `${target} ${s.label} c=${connections}${ratePerSecond ? ` at ${ratePerSecond}/s` : ''}: ${result.rps} req/s${linesPerSecond === undefined ? '' : ` (${linesPerSecond} lines/s)`}, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, failed ${result.failed} ${JSON.stringify(result.statuses)}` +
        (cpu
          ? `, server CPU ${cpu.serverPct.toFixed(0)}% = ${cpu.serverUsPerRequest.toFixed(0)} µs/req, Redis+PostgreSQL ${cpu.storesUsPerRequest.toFixed(0)} µs/req, machine ${cpu.machinePct.toFixed(0)}% busy`
          : '') +
        (cpu && s.ipsPerRequest ? ` (${(cpu.serverUsPerRequest / s.ipsPerRequest).toFixed(1)} µs/IP)` : '') +
        (loop
          ? `, loop delay p50 ${loop.p50.toFixed(1)} / p99 ${loop.p99.toFixed(1)} / max ${loop.max.toFixed(1)} ms`
          : ''),
    );
    rows.push({
      target,
      scenario: s,
      connections,
      ratePerSecond,
      result,
      cpu,
      loop,
      ...(linesPerSecond === undefined ? {} : { linesPerSecond }),
    });
  }
  return rows;
}

/** The main thread's profile is the biggest file (a tsx-loaded child's loader thread writes one too). */
function mainThreadProfile(dir: string): string {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f));
  return files.sort((a, b) => statSync(b).size - statSync(a).size)[0] ?? dir;
}

/** RSS of the serving process: with WORKERS, of the largest worker (the supervisor only hands connections on). */
function servingRss(child: Child): { rssMb: number; peakMb: number } | null {
  const pid = child.proc.pid;
  if (pid === undefined) return null;
  const workers = descendantsOf(pid)
    .map(memoryOf)
    .filter((m) => m !== null);
  if (workers.length === 0) return memoryOf(pid);
  return { rssMb: Math.max(...workers.map((m) => m.rssMb)), peakMb: Math.max(...workers.map((m) => m.peakMb)) };
}

/** Samples the serving process's VmRSS every 500 ms while the service is under load. */
function sampleRss(child: Child): () => number | null {
  const samples: number[] = [];
  const timer = setInterval(() => {
    const m = servingRss(child);
    if (m) samples.push(m.rssMb);
  }, 500);
  return () => {
    clearInterval(timer);
    samples.sort((a, b) => a - b);
    return samples.length ? samples[Math.floor(samples.length / 2)]! : null;
  };
}

/** The machine's load average when the run starts and ends: other work on a shared machine moves every figure. */
const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');

async function main() {
  const cpu = os.cpus();
  const machine = `${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
  log(machine);
  if (!wrkPath()) throw new Error('wrk is not installed: the bench drives its load with wrk (apt-get install -y wrk)');
  const loadAtStart = loadAverage();
  if (SWEEP_SIZES) {
    const md = await runSweep({
      root: ROOT,
      sizes: SWEEP_SIZES,
      durationS: DURATION_S,
      warmupS: WARMUP_S,
      keyCount: KEY_COUNT,
      wrkThreads: WRK_THREADS,
      machine,
      log,
      backends,
    });
    const text = `${md}\n\nLoad average (1, 5, 15 min): ${loadAtStart} at the start, ${loadAverage()} at the end.`;
    console.log(text);
    const saved = path.join(ROOT, 'bench', 'results', 'sweep-latest.md');
    mkdirSync(path.dirname(saved), { recursive: true });
    writeFileSync(saved, `${text}\n`);
    log(`saved ${path.relative(ROOT, saved)}`);
    return;
  }
  const data = await buildDataset(IPS);
  log(
    `data set: ${data.ips.length} IPs → ${data.global.length} global + ${data.contextual.length} workspace summaries (built in ${data.buildMs} ms)`,
  );
  const pepper = randomBytes(32).toString('hex');
  const seeded: Array<{ backend: Backend; seeded: Seeded }> = [];
  if (backendWanted('embedded')) backends.push(embeddedBackend());
  if (backendWanted('postgres+redis')) backends.push(await postgresBackend());
  for (const backend of backends) {
    const s = await seed({ databaseUrl: backend.databaseUrl, dataDir: backend.dataDir, pepper }, data, KEY_COUNT);
    log(`${backend.name}: seeded ${s.rows} summaries and ${s.keys.length} keys in ${s.seedMs} ms`);
    seeded.push({ backend, seeded: s });
  }
  const publishedRows = seeded[0]?.seeded.rows ?? data.global.length + data.contextual.length;
  // seed.ts picks the same IPs on every backend; the other rows rotate over the IPs the workspace never wrote about.
  const written = seeded[0]?.seeded.writtenIps ?? [];
  const writtenSet = new Set(written);
  const sets: IpSets = {
    written,
    fresh: data.ips.filter((ip) => !writtenSet.has(ip)),
    decided: data.ips,
    undecided: undecidedIps(data.ips, ROTATION, prng(7)),
  };

  const rows: LoadRow[] = [];
  let all = scenarios('');
  const floorEnv = serviceEnv({});
  const floorHttp = await startServer('floor-http', 'bench/floor-http.ts', floorEnv, '/', ROOT);
  rows.push(
    ...(await runPlan(
      'floor',
      floorHttp.child,
      floorHttp.baseUrl,
      FLOOR_PLAN.filter(([n]) => n === 'floor-http'),
      all,
      sets,
      [],
    )),
  );
  await stop(floorHttp.child);
  // The metered floor counts each call in the machine's Redis: without one, its rows are skipped.
  const meteredPlan = FLOOR_PLAN.filter(([n]) => n === 'floor-metered');
  try {
    const floorMetered = await startServer(
      'floor-metered',
      'bench/floor-metered.ts',
      { ...floorEnv, REDIS_URL },
      '/healthz',
      ROOT,
    );
    rows.push(...(await runPlan('floor', floorMetered.child, floorMetered.baseUrl, meteredPlan, all, sets, [])));
    await stop(floorMetered.child);
  } catch (e) {
    log(`metered floor skipped: ${String(e).split('\n')[0]}`);
    const skipped = `skipped: no Redis at ${REDIS_URL}`;
    rows.push(
      ...meteredPlan.map(([name, connections, ratePerSecond]) => ({
        target: 'floor',
        scenario: all[name],
        connections,
        ratePerSecond,
        result: { skipped },
        cpu: null,
        loop: null,
      })),
    );
  }
  const floorYoga = await startServer(
    'floor-yoga',
    'bench/floor-yoga.ts',
    floorEnv,
    '/graphql?query=%7Bhello%7D',
    ROOT,
  );
  rows.push(
    ...(await runPlan(
      'floor',
      floorYoga.child,
      floorYoga.baseUrl,
      FLOOR_PLAN.filter(([n]) => n === 'floor-yoga'),
      all,
      sets,
      [],
    )),
  );
  await stop(floorYoga.child);

  let peerNote: string;
  if (args['no-peer']) peerNote = 'CrowdSec row skipped (--no-peer).';
  else if (!crowdsecInstalled())
    peerNote =
      "CrowdSec row skipped: Debian's `crowdsec` is not installed (see docs/benchmarks.md#the-peer-crowdsec-lapi).";
  else {
    const peer = await startCrowdsec(sets.decided);
    cleanups.push(peer.remove);
    log(
      `crowdsec ${peer.version}: LAPI ready in ${peer.readyMs} ms, ${sets.decided.length} decisions imported in ${peer.importMs} ms`,
    );
    rows.push(...(await runPlan('crowdsec', peer.child, peer.baseUrl, PEER_PLAN, all, sets, [peer.key])));
    await peer.remove();
    peerNote =
      `CrowdSec ${peer.version} LAPI alone (\`crowdsec -no-cs -no-capi\`, SQLite, the package's log levels), ` +
      `${sets.decided.length.toLocaleString('en-US')} \`ban\` decisions (one per bench IP, \`cscli decisions import\`), one bouncer key; ` +
      '"IPs without a decision" are other random addresses.';
  }

  const serviceBundle = buildService(ROOT);
  const services: ServiceRow[] = [];
  const profiles: string[] = [];
  let querySource = '';
  for (const { backend, seeded: s } of seeded) {
    // One directory per service, so its profile is told apart from the others'.
    const profDir = path.join(PROFILE_DIR, `${backend.name.replace(/\W+/g, '-')}-${Date.now()}`);
    const flags = args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
    const env = startScriptEnv(ROOT, serviceEnv({ API_KEY_PEPPER: pepper, ...backend.env }));
    const workers = all['score-rest-workers'].workers!;
    const workerRuns =
      backend.name === 'postgres+redis'
        ? [{ plan: WORKERS_PLAN, workers, label: `${backend.name}, WORKERS=${workers} (largest worker)` }]
        : [];
    // The WORKERS service runs first, on the data as seeded: the one-process rows it is held to also see it so,
    // before the write rows add to every scored IP's memory and the override rules come into force.
    const runs = [...workerRuns, { plan: SERVICE_PLAN, workers: 1, label: backend.name }];
    for (const run of runs.filter((r) => r.plan.length > 0)) {
      const runEnv = run.workers > 1 ? { ...env, WORKERS: String(run.workers) } : env;
      const svc = await startServer(`service (${run.label})`, serviceBundle, runEnv, '/readyz', ROOT, flags);
      log(`${run.label}: ready in ${svc.readyMs} ms`);
      const rssReady = servingRss(svc.child)?.rssMb ?? null;
      if (!querySource) {
        const q = await scoreGraphQLQuery(`${svc.baseUrl}/graphql`, s.keys[0]!);
        all = scenarios(q.query);
        querySource = q.source;
        log(`score GraphQL document (${q.source}): ${q.query.replace(/\s+/g, ' ')}`);
      }
      const rssUnderLoad = sampleRss(svc.child);
      rows.push(...(await runPlan(backend.name, svc.child, svc.baseUrl, run.plan, all, sets, s.keys)));
      const rssLoad = rssUnderLoad();
      const peak = servingRss(svc.child)?.peakMb ?? null;
      services.push({ name: run.label, readyMs: svc.readyMs, rssReadyMb: rssReady, rssLoadMb: rssLoad, peakMb: peak });
      await stop(svc.child);
    }
    if (flags.length) profiles.push(mainThreadProfile(profDir));
  }

  const md = [
    `### Load benchmark — \`npm run ${args.targets ? 'bench:targets' : 'bench'}\`, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC${args['cpu-prof'] ? ' (services profiled with --cpu-prof: slower)' : ''}`,
    '',
    `Machine: ${machine}. Load average (1, 5, 15 min): ${loadAtStart} at the start, ${loadAverage()} at the end (the machine is shared: other work moves every figure).`,
    `Data: ${data.ips.length.toLocaleString('en-US')} announced IPv4 addresses resolved through the packaged network data → one published summary set of ` +
      `${publishedRows.toLocaleString('en-US')} entities (ip, subnet, ISP, AS, org, city, region, country; ${data.contextual.length} of them in the bench workspace's own layer); ` +
      `the load rotates over ${ROTATION.toLocaleString('en-US')} requests per row (distinct IPs where the row has as many) and ${KEY_COUNT} enterprise keys. The bench workspace rated (twice) and reported (once, as the subject or a related one) ` +
      `${written.length.toLocaleString('en-US')} of the IPs at seed time: the "IPs the workspace wrote about" row rotates over those, every other row over the rest.`,
    `Load: wrk (${WRK_THREADS} thread${WRK_THREADS > 1 ? 's' : ''}), ${WARMUP_S} s warm-up then ${DURATION_S} s per ${CONNECTIONS}-connection row (${SWEEP_S} s at 1 and 8); latencies from wrk's histogram of every response. ` +
      `"vs floor": REST rows against bare node:http at the same connections, GraphQL against bare yoga; score GraphQL sends ${querySource || '(no service ran)'}.`,
    `Peer: ${peerNote}`,
    '',
    loadTable(rows, CONNECTIONS),
    '',
    peerTable(rows, CONNECTIONS),
    '',
    serviceTable(services),
    '',
    ...(args.targets ? ['#### Issue 34 targets', '', targetsTable(rows, CONNECTIONS), ''] : []),
    'Ratios compare servers measured in this one run on the same machine (the load generator shares its CPU); absolute figures move 10–25% between runs.',
    '"server CPU": the server process (all threads; with WORKERS, its workers too) over the measured window, in % of one core; "µs/req" divides it by the requests answered. ' +
      '"Redis+PG µs/req": every redis-server and postgres process on the machine, per request (idle ones add little). ' +
      '"loop delay": the server\'s event-loop delay over the window (p50 / p99 / max ms beyond its 10 ms sampling timer), ' +
      'from its GET /metrics (prom-client\'s monitorEventLoopDelay, reset by a scrape at the window\'s start); "—" where the server has no /metrics.',
  ].join('\n');
  console.log(md);
  // A profiled run is slower: it must not replace the figures of a plain one.
  const saved = path.join(
    ROOT,
    'bench',
    'results',
    args['cpu-prof'] ? 'latest-cpu-prof.md' : args.targets ? 'targets-latest.md' : 'latest.md',
  );
  mkdirSync(path.dirname(saved), { recursive: true });
  writeFileSync(saved, `${md}\n`);
  log(`saved ${path.relative(ROOT, saved)}`);
  for (const p of profiles)
    console.log(`CPU profile: ${p}  (npx tsx bench/top-functions.ts ${path.relative(ROOT, p)})`);
}

try {
  await main();
} catch (e) {
  log(`failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
