/**
 * `npx tsx bench/model-report-history.ts [--ips 1000000] [--days 35] [--limit-min 40]`
 *
 * The model report over a large history, in the server, under the reliability probe: a PostgreSQL database seeded
 * in SQL with one community report for each of `--ips` distinct IPs (spread over the IPv4 space, eight workspaces,
 * outcomes and severities mixed, times spread over the last `--days` days), the service started on it as
 * `npm start` runs it (its background model report for the /metrics gauges starts a minute after start), and
 * /healthz probed every 50 ms from a process of its own (test/helpers/healthz-probe.mjs) until the gauges appear.
 * It prints how long the report took, the server's peak RSS and the probes: the worst server main-thread time a
 * probe waited (the bound the reliability tests hold is 100 ms) and the worst wall time. Stops by itself after
 * `--limit-min` minutes and removes its database.
 * --in-process runs the report in this process instead (no server start, which a loaded machine can hold past its
 * limit): it prints the report's wall and CPU time, this process's RSS before and at its peak, and the event loop's
 * longest delay while the report ran (what a request would have waited).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { memoryOf, startServer, stopAll } from './children.ts';
import { postgresBackend, serviceEnv } from './backends.ts';
import { openDatabase } from '../src/platform/db/database.ts';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadNetworkData } from '../src/domain/network/index.ts';
import { modelReport } from '../src/domain/quality/model-report.ts';

const root = path.resolve(import.meta.dirname, '..');
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  const v = i < 0 ? fallback : Number(process.argv[i + 1]);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);
  return v;
};
const IPS = arg('ips', 1_000_000);
const DAYS = arg('days', 35);
const LIMIT_MS = arg('limit-min', 40) * 60_000;
const PROBE_MS = 50;
const BOUND_MS = 100;
/** IPs are 1.0.0.0 + g × STEP: an odd step spreads them over most of the IPv4 space. */
const STEP = Math.max(1, Math.floor(3_700_000_000 / IPS) | 1);

/** CPU seconds (user + system) the process has used; the machine is shared, so this, not wall time, is the cost. */
function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function seed(databaseUrl: string, backendDir: string): Promise<number> {
  const db = await openDatabase({ databaseUrl, dataDir: backendDir });
  await db.migrate();
  await db.close();
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  const started = performance.now();
  try {
    await c.query(`INSERT INTO "Workspace" (name) SELECT 'history-' || w FROM generate_series(0, 7) w`);
    await c.query(`
      INSERT INTO "Subject" ("workspaceId", kind, key)
      SELECT w.id, 'ipaddress', host('1.0.0.0'::inet + g::bigint * ${STEP})
        FROM generate_series(1, ${IPS}) g
        JOIN "Workspace" w ON w.name = 'history-' || (g % 8)`);
    await c.query(`
      INSERT INTO "Report" ("workspaceId", "subjectId", "eventType", "outcomeCode", severity, title, summary, details,
                            tags, status, "sharePolicy", namespace, "requestedVisibility", "effectiveVisibility",
                            "policyNotice", "createdAt")
      SELECT s."workspaceId", s.id, 'observation',
             (ARRAY['fraud_confirmed','credential_stuffing','spam','scraping','bot_activity','false_positive'])[1 + s.id % 6],
             (ARRAY['low','medium','high','critical'])[1 + (s.id / 7) % 4],
             't', 's', 'd', '{}', 'open', 'community', '', 'community', 'community', '',
             now() - (random() * ${DAYS}) * interval '1 day'
        FROM "Subject" s JOIN "Workspace" w ON w.id = s."workspaceId" AND w.name LIKE 'history-%'`);
    await c.query('ANALYZE');
  } finally {
    await c.end();
  }
  return Math.round((performance.now() - started) / 1000);
}

function startProbe(url: string, pid: number) {
  const probe = spawn(
    process.execPath,
    [path.join(root, 'test/helpers/healthz-probe.mjs'), url, String(pid), String(PROBE_MS)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let out = '';
  probe.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const ready = new Promise<void>((resolve, reject) => {
    probe.once('exit', () => reject(new Error(`the probe ended early: ${out}`)));
    const wait = () => (out.includes('ready') ? resolve() : setTimeout(wait, 20));
    wait();
  });
  return {
    ready,
    async stop(): Promise<Array<[number, number]>> {
      probe.removeAllListeners('exit');
      const exited = new Promise((resolve) => probe.once('exit', resolve));
      probe.stdin.end();
      await exited;
      return JSON.parse(out.trim().split('\n').pop()!);
    },
  };
}

async function inProcess(databaseUrl: string, dataDir: string, seedS: number): Promise<void> {
  const network = await loadNetworkData();
  const db = await openDatabase({ databaseUrl, dataDir });
  const rssMb = () => Math.round(process.memoryUsage().rss / 1048576);
  const before = rssMb();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const cpu = process.cpuUsage();
  const started = performance.now();
  try {
    const report = await modelReport(db.prisma, network);
    loop.disable();
    const used = process.cpuUsage(cpu);
    console.log(
      [
        `history: ${IPS} IPs, one community report each over ${DAYS} days (seeded in ${seedS} s)`,
        `model report in process: ${report.ips} IPs sampled over ${report.instants.length} instants, ` +
          `${Math.round((performance.now() - started) / 1000)} s wall, ${Math.round((used.user + used.system) / 1e6)} s CPU`,
        `RSS before the report ${before} MB (network index and database client loaded), peak ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
        `event loop: longest delay ${Math.round(loop.max / 1e6)} ms, p99 ${Math.round(loop.percentile(99) / 1e6)} ms`,
        `load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
      ].join('\n'),
    );
  } finally {
    await db.close();
  }
}

async function main() {
  const backend = await postgresBackend({ label: 'model_history' });
  try {
    console.error(`seeding ${IPS} IPs of history (one report each, step ${STEP})…`);
    const seedS = await seed(backend.databaseUrl!, backend.dataDir);
    if (process.argv.includes('--in-process')) {
      await inProcess(backend.databaseUrl!, backend.dataDir, seedS);
      return;
    }
    console.error(`seeded in ${seedS} s; starting the service`);
    const { child, baseUrl } = await startServer(
      'server',
      'src/start.ts',
      serviceEnv({ ...backend.env, LOG_LEVEL: 'warn' }),
      '/healthz',
      root,
    );
    const pid = child.proc.pid!;
    const probe = startProbe(baseUrl, pid);
    await probe.ready;
    const readyAt = performance.now();
    const cpuAtReady = cpuSecondsOf(pid);
    let cpuAtDone = 0;
    let doneAt: number | null = null;
    let peakMb = 0;
    let crashed: string | null = null;
    while (performance.now() - readyAt < LIMIT_MS) {
      await new Promise((r) => setTimeout(r, 2000));
      peakMb = Math.max(peakMb, memoryOf(pid)?.peakMb ?? 0);
      const exited = child.proc.exitCode ?? child.proc.signalCode;
      if (exited !== null) {
        crashed = `the server ended (${exited}) after ${Math.round((performance.now() - readyAt) / 1000)} s, peak RSS ${peakMb} MB:\n${child.stderr()}`;
        break;
      }
      const text = await fetch(`${baseUrl}/metrics`)
        .then((r) => r.text())
        .catch(() => '');
      if (/^risk_model_level_ips\{/m.test(text)) {
        doneAt = performance.now();
        cpuAtDone = cpuSecondsOf(pid);
        console.log(
          text
            .split('\n')
            .filter((l) => l.startsWith('risk_model_'))
            .join('\n'),
        );
        break;
      }
    }
    const probes = crashed === null ? await probe.stop() : [];
    if (crashed !== null) {
      console.log(
        `history: ${IPS} IPs, one community report each over ${DAYS} days (seeded in ${seedS} s)\n${crashed}`,
      );
      process.exitCode = 1;
      return;
    }
    const worstCpu = Math.max(...probes.map((p) => p[1]));
    const worstWall = Math.max(...probes.map((p) => p[0]));
    const over = probes.filter((p) => p[1] > BOUND_MS).length;
    console.log(
      [
        `history: ${IPS} IPs, one community report each over ${DAYS} days (seeded in ${seedS} s)`,
        doneAt === null
          ? `model report: not finished within ${LIMIT_MS / 60_000} min of the server being ready`
          : `model report: gauges published ${Math.round((doneAt - readyAt) / 1000)} s after the server was ready (the report starts 60 s after start); server CPU in that time ${Math.round(cpuAtDone - cpuAtReady)} s; load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
        `server peak RSS ${peakMb} MB`,
        `/healthz probes: ${probes.length}, worst server main-thread time ${worstCpu} ms (bound ${BOUND_MS}), ` +
          `${over} over the bound, worst wall time ${Math.round(worstWall)} ms`,
      ].join('\n'),
    );
    if (doneAt === null || over > 0) process.exitCode = 1;
  } finally {
    await stopAll();
    await backend.remove();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 2;
});
