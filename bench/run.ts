/**
 * `npm run bench`: in ONE run, the two floors (bare node:http, bare yoga) and the service on
 * the embedded default and on PostgreSQL + Redis, each seeded with a real-sized published
 * summary set, driven by autocannon; prints a markdown table (also saved to
 * bench/results/latest.md). Loopback only; every child and every database/key it made is
 * removed at the end, on failure too, and the whole run has a time limit.
 *
 *   --cpu-prof        profile the service children (bench/profiles/*.cpuprofile; see top-functions.ts)
 *   --ips N           data set size (default 100000)   --duration S   seconds per measured row (default 8)
 *   --scenarios a,b   only these service scenarios (e.g. score-rest, to profile one path)
 *   --backends a,b    only these backends (embedded, postgres+redis)
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { buildDataset } from './dataset.ts';
import { seed, type Seeded } from './seed.ts';
import { embeddedBackend, postgresBackend, serviceEnv, type Backend } from './backends.ts';
import { buildService, freePort, memoryOf, startNode, startScriptEnv, stop, stopAll, waitReady, type Child } from './children.ts';
import { measure, probe } from './load.ts';
import { cpuWindow } from './cpu.ts';
import { requestLists, scenarios, type Scenario, type ScenarioName } from './scenarios.ts';
import { loadTable, serviceTable, type LoadRow, type ServiceRow } from './report.ts';
import { scoreGraphQLQuery } from './graphql-score.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: {
  'cpu-prof': { type: 'boolean', default: false }, ips: { type: 'string', default: '100000' }, duration: { type: 'string', default: '8' },
  scenarios: { type: 'string' }, backends: { type: 'string' },
} });
const only = (list: string | undefined) => (name: string) => !list || list.split(',').includes(name);
const scenarioWanted = only(args.scenarios);
const backendWanted = only(args.backends);
const IPS = Number(args.ips);
const DURATION_S = Number(args.duration);
const SWEEP_S = Math.max(2, Math.round(DURATION_S / 2)); // the 1- and 8-connection rows are context, kept short
const WARMUP_S = 2;
const KEY_COUNT = 64; // score's burst limit is 500/s per key on 'enterprise': 64 keys allow 32,000/s
const TIME_LIMIT_MS = 12 * 60_000;
const PROFILE_DIR = path.join(ROOT, 'bench', 'profiles');

const log = (msg: string) => console.error(`[bench +${Math.round(process.uptime())}s] ${msg}`);
const backends: Backend[] = [];
let cleaning: Promise<void> | null = null;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await stopAll();
    for (const b of backends) await b.remove().catch((e) => log(`could not remove ${b.name}: ${String(e)}`));
  })();
  return cleaning;
}
const abort = (why: string) => { log(why); void cleanup().finally(() => process.exit(2)); };
setTimeout(() => abort(`time limit of ${TIME_LIMIT_MS / 60_000} min reached: stopping`), TIME_LIMIT_MS).unref();
process.once('SIGINT', () => abort('interrupted'));
process.once('SIGTERM', () => abort('terminated'));

type Plan = Array<[ScenarioName, number]>;
const FLOOR_PLAN: Plan = [['floor-http', 1], ['floor-http', 8], ['floor-http', 32], ['floor-yoga', 32]];
// Reads before writes: rate/report grow the database, which the reads should not see.
const SERVICE_PLAN: Plan = ([['score-rest', 1], ['score-rest', 8], ['score-rest', 32], ['score-rest-written', 32], ['score-graphql', 32], ['score-mcp', 32], ['dimensions', 32], ['rate', 32], ['report', 32]] as Plan)
  .filter(([name]) => scenarioWanted(name));

async function runPlan(
  target: string, server: Child, baseUrl: string, plan: Plan, all: Record<ScenarioName, Scenario>, ips: string[], keys: string[], writtenIps: string[] = [],
): Promise<LoadRow[]> {
  const rows: LoadRow[] = [];
  for (const [name, connections] of plan) {
    const s = all[name];
    const lists = requestLists(s, s.written ? writtenIps : ips, keys, connections);
    const p = await probe(baseUrl, lists[0]![0]!, s.graphql, s.mcp);
    if (!p.ok) {
      log(`${target} ${s.label}: ${p.reason}`);
      rows.push({ target, scenario: s, connections, result: { skipped: p.reason }, cpu: null });
      continue;
    }
    const durationS = connections === 32 ? DURATION_S : SWEEP_S;
    await measure(baseUrl, lists, { connections, durationS: WARMUP_S, graphql: s.graphql, mcp: s.mcp, record: false });
    const cpuUse = cpuWindow(server.proc.pid);
    const result = await measure(baseUrl, lists, { connections, durationS, graphql: s.graphql, mcp: s.mcp, record: true });
    const cpu = cpuUse(result.requests);
    log(`${target} ${s.label} c=${connections}: ${result.rps} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, failed ${result.failed} ${JSON.stringify(result.statuses)}`
      + (cpu ? `, server CPU ${cpu.serverPct.toFixed(0)}% = ${cpu.serverUsPerRequest.toFixed(0)} µs/req, Redis+PostgreSQL ${cpu.storesUsPerRequest.toFixed(0)} µs/req` : ''));
    rows.push({ target, scenario: s, connections, result, cpu });
  }
  return rows;
}

async function startChild(name: string, script: string, env: Record<string, string>, readyPath: string, flags: string[] = []) {
  const port = await freePort();
  const spawnedAt = performance.now();
  const child = startNode(name, path.resolve(ROOT, script), { ...env, PORT: String(port) }, flags, ROOT);
  const readyMs = await waitReady(child, `http://127.0.0.1:${port}${readyPath}`, spawnedAt);
  return { child, baseUrl: `http://127.0.0.1:${port}`, readyMs };
}

/** The main thread's profile is the biggest file (a tsx-loaded child's loader thread writes one too). */
function mainThreadProfile(dir: string): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(dir, f));
  return files.sort((a, b) => statSync(b).size - statSync(a).size)[0] ?? dir;
}

/** Samples VmRSS every 500 ms while the service is under load. */
function sampleRss(child: Child): () => number | null {
  const samples: number[] = [];
  const timer = setInterval(() => { const m = memoryOf(child.proc.pid); if (m) samples.push(m.rssMb); }, 500);
  return () => {
    clearInterval(timer);
    samples.sort((a, b) => a - b);
    return samples.length ? samples[Math.floor(samples.length / 2)]! : null;
  };
}

async function main() {
  const cpu = os.cpus();
  const machine = `${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
  log(machine);
  const data = await buildDataset(IPS);
  log(`data set: ${data.ips.length} IPs → ${data.global.length} global + ${data.contextual.length} workspace summaries (built in ${data.buildMs} ms)`);
  const pepper = randomBytes(32).toString('hex');
  const seeded: Array<{ backend: Backend; seeded: Seeded }> = [];
  if (backendWanted('embedded')) backends.push(embeddedBackend());
  if (backendWanted('postgres+redis')) backends.push(await postgresBackend());
  for (const backend of backends) {
    const s = await seed({ databaseUrl: backend.databaseUrl, dataDir: backend.dataDir, pepper }, data, KEY_COUNT);
    log(`${backend.name}: seeded ${s.rows} summaries and ${s.keys.length} keys in ${s.seedMs} ms`);
    seeded.push({ backend, seeded: s });
  }
  const ips = data.ips;
  const publishedRows = seeded[0]!.seeded.rows;

  const rows: LoadRow[] = [];
  let all = scenarios('');
  const floorEnv = serviceEnv({});
  const floorHttp = await startChild('floor-http', 'bench/floor-http.ts', floorEnv, '/');
  rows.push(...await runPlan('floor', floorHttp.child, floorHttp.baseUrl, FLOOR_PLAN.filter(([n]) => n === 'floor-http'), all, ips, []));
  await stop(floorHttp.child);
  const floorYoga = await startChild('floor-yoga', 'bench/floor-yoga.ts', floorEnv, '/graphql?query=%7Bhello%7D');
  rows.push(...await runPlan('floor', floorYoga.child, floorYoga.baseUrl, FLOOR_PLAN.filter(([n]) => n === 'floor-yoga'), all, ips, []));
  await stop(floorYoga.child);

  const serviceBundle = buildService(ROOT);
  const services: ServiceRow[] = [];
  const profiles: string[] = [];
  let querySource = '';
  for (const { backend, seeded: s } of seeded) {
    // One directory per service, so its profile is told apart from the others'.
    const profDir = path.join(PROFILE_DIR, `${backend.name.replace(/\W+/g, '-')}-${Date.now()}`);
    const flags = args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
    const svc = await startChild(`service (${backend.name})`, serviceBundle, startScriptEnv(ROOT, serviceEnv({ API_KEY_PEPPER: pepper, ...backend.env })), '/readyz', flags);
    log(`${backend.name}: ready in ${svc.readyMs} ms`);
    const rssReady = memoryOf(svc.child.proc.pid)?.rssMb ?? null;
    if (!querySource) {
      const q = await scoreGraphQLQuery(`${svc.baseUrl}/graphql`, s.keys[0]!);
      all = scenarios(q.query);
      querySource = q.source;
      log(`score GraphQL document (${q.source}): ${q.query.replace(/\s+/g, ' ')}`);
    }
    const rssUnderLoad = sampleRss(svc.child);
    rows.push(...await runPlan(backend.name, svc.child, svc.baseUrl, SERVICE_PLAN, all, ips, s.keys, s.writtenIps));
    const rssLoad = rssUnderLoad();
    const peak = memoryOf(svc.child.proc.pid)?.peakMb ?? null;
    services.push({ name: backend.name, readyMs: svc.readyMs, rssReadyMb: rssReady, rssLoadMb: rssLoad, peakMb: peak });
    await stop(svc.child);
    if (flags.length) profiles.push(mainThreadProfile(profDir));
  }

  const md = [
    `### Load benchmark — \`npm run bench\`, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC${args['cpu-prof'] ? ' (services profiled with --cpu-prof: slower)' : ''}`,
    '',
    `Machine: ${machine}.`,
    `Data: ${ips.length.toLocaleString('en-US')} announced IPv4 addresses resolved through the packaged network data → one published summary set of `
      + `${publishedRows.toLocaleString('en-US')} entities (ip, subnet, ISP, AS, org, city, region, country; ${data.contextual.length} of them in the bench workspace's own layer); `
      + `the load rotates over those IPs and ${KEY_COUNT} enterprise keys. The bench workspace rated (twice) and reported (once, as the subject or a related one) `
      + `${seeded[0]!.seeded.writtenIps.length.toLocaleString('en-US')} of them: the "IPs the workspace wrote about" row rotates over those.`,
    `Load: autocannon, ${WARMUP_S} s warm-up then ${DURATION_S} s per 32-connection row (${SWEEP_S} s at 1 and 8); latencies from every response. `
      + `"vs floor": REST rows against bare node:http at the same connections, GraphQL against bare yoga; score GraphQL sends ${querySource}.`,
    '',
    loadTable(rows),
    '',
    serviceTable(services),
    '',
    'Ratios compare servers measured in this one run on the same machine (the load generator shares its CPU); absolute figures move 10–25% between runs.',
    '"server CPU": the server process (all threads) over the measured window, in % of one core; "µs/req" divides it by the requests answered. '
      + '"Redis+PG µs/req": every redis-server and postgres process on the machine, per request (idle ones add little).',
  ].join('\n');
  console.log(md);
  // A profiled run is slower: it must not replace the figures of a plain one.
  const saved = path.join(ROOT, 'bench', 'results', args['cpu-prof'] ? 'latest-cpu-prof.md' : 'latest.md');
  mkdirSync(path.dirname(saved), { recursive: true });
  writeFileSync(saved, md + '\n');
  log(`saved ${path.relative(ROOT, saved)}`);
  for (const p of profiles) console.log(`CPU profile: ${p}  (npx tsx bench/top-functions.ts ${path.relative(ROOT, p)})`);
}

try {
  await main();
} catch (e) {
  log(`failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
