/**
 * `npm run bench -- --sweep 20000,100000,1000000`: how start-up, memory and the score call move as
 * the published data grows. For each size, in turn and alone on the machine's services: build the
 * data set, seed a fresh PostgreSQL database (+ a Redis prefix), start the service as `npm start`
 * does, and record ready time (spawn → /readyz 200), RSS when ready, and REST `score` under wrk at
 * 16 connections; the database is dropped before the next size.
 */
import { buildDataset } from './dataset.ts';
import { seed } from './seed.ts';
import { postgresBackend, serviceEnv, type Backend } from './backends.ts';
import { buildService, memoryOf, startScriptEnv, startServer, stop } from './children.ts';
import { measure, probe } from './load.ts';
import { cpuWindow } from './cpu.ts';
import { loopDelayWindow, type LoopDelay } from './loop-delay.ts';
import { requestsOf, scenarios } from './scenarios.ts';
import { randomBytes } from 'node:crypto';

const CONNECTIONS = 16;
/** Issue 19's targets at the largest size: ready ≤ 10 s, RSS ≤ 400 MB, score req/s ≥ 90% of the smallest size's. */
const TARGETS = { readyMs: 10_000, rssMb: 400, rpsVsSmallest: 0.9 };

type SweepRow = {
  ips: number;
  rows: number;
  seedMs: number;
  readyMs: number;
  rssReadyMb: number | null;
  rssLoadedMb: number | null;
  rps: number;
  p50: number;
  p99: number;
  failed: number;
  serverUsPerRequest: number | null;
  loop: LoopDelay | null;
};

export async function runSweep(o: {
  root: string;
  sizes: number[];
  durationS: number;
  warmupS: number;
  keyCount: number;
  wrkThreads: number;
  machine: string;
  log: (msg: string) => void;
  backends: Backend[];
}): Promise<string> {
  const bundle = buildService(o.root);
  const out: SweepRow[] = [];
  for (const size of o.sizes) {
    const data = await buildDataset(size);
    o.log(`sweep ${size}: data set built in ${data.buildMs} ms`);
    const backend = await postgresBackend();
    o.backends.push(backend); // removed by the run's cleanup if anything below fails
    const pepper = randomBytes(32).toString('hex');
    const s = await seed({ databaseUrl: backend.databaseUrl, dataDir: backend.dataDir, pepper }, data, o.keyCount);
    o.log(`sweep ${size}: seeded ${s.rows} summaries in ${s.seedMs} ms`);
    const svc = await startServer(
      `service (${size} IPs)`,
      bundle,
      startScriptEnv(o.root, serviceEnv({ API_KEY_PEPPER: pepper, ...backend.env })),
      '/readyz',
      o.root,
    );
    const rssReadyMb = memoryOf(svc.child.proc.pid)?.rssMb ?? null;
    o.log(`sweep ${size}: ready in ${svc.readyMs} ms, RSS ${rssReadyMb} MB`);
    const requests = requestsOf(scenarios('')['score-rest'], data.ips, s.keys, 16_384);
    const p = await probe(svc.baseUrl, requests[0]!, false);
    if (!p.ok) throw new Error(`sweep ${size}: score REST ${p.reason}`);
    await measure(svc.baseUrl, requests, { connections: CONNECTIONS, durationS: o.warmupS, threads: o.wrkThreads });
    const loopEnd = await loopDelayWindow(svc.baseUrl);
    const cpuUse = cpuWindow(svc.child.proc.pid);
    const r = await measure(svc.baseUrl, requests, {
      connections: CONNECTIONS,
      durationS: o.durationS,
      threads: o.wrkThreads,
    });
    const cpu = cpuUse(r.requests);
    const loop = await loopEnd();
    const rssLoadedMb = memoryOf(svc.child.proc.pid)?.rssMb ?? null;
    o.log(
      `sweep ${size}: score REST ${r.rps} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, failed ${r.failed}`,
    );
    out.push({
      ips: data.ips.length,
      rows: s.rows,
      seedMs: s.seedMs,
      readyMs: svc.readyMs,
      rssReadyMb,
      rssLoadedMb,
      rps: r.rps,
      p50: r.p50,
      p99: r.p99,
      failed: r.failed,
      serverUsPerRequest: cpu?.serverUsPerRequest ?? null,
      loop,
    });
    await stop(svc.child);
    o.backends.splice(o.backends.indexOf(backend), 1);
    await backend.remove();
  }
  return sweepTable(out, o);
}

const mb = (n: number | null) => (n === null ? '—' : `${fmt(n)} MB`);
const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '—';

function sweepTable(
  rows: SweepRow[],
  o: { durationS: number; warmupS: number; wrkThreads: number; machine: string },
): string {
  const smallest = rows[0];
  const largest = rows[rows.length - 1];
  const lines = [
    `### Data-size sweep — \`npm run bench -- --sweep ${rows.map((r) => r.ips).join(',')}\`, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `Machine: ${o.machine}. Service on PostgreSQL + Redis, one size at a time, each on a freshly seeded database; ` +
      `REST \`score\` under wrk (${o.wrkThreads} thread${o.wrkThreads > 1 ? 's' : ''}, ${CONNECTIONS} connections), ${o.warmupS} s warm-up then ${o.durationS} s.`,
    '',
    `| seeded IPs | summary rows | seed | ready | RSS ready | RSS after the load | score req/s (${CONNECTIONS} conns) | vs smallest | p50 / p99 ms | server µs/req | loop delay p50 / p99 / max ms | failed |`,
    '|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${fmt(r.ips)} | ${fmt(r.rows)} | ${fmt(r.seedMs / 1000, 1)} s | ${fmt(r.readyMs / 1000, 1)} s | ${mb(r.rssReadyMb)} | ${mb(r.rssLoadedMb)} | ` +
        `${fmt(r.rps)} | ${smallest ? `${Math.round((100 * r.rps) / smallest.rps)}%` : '—'} | ${fmt(r.p50, 2)} / ${fmt(r.p99, 2)} | ` +
        `${r.serverUsPerRequest === null ? '—' : fmt(r.serverUsPerRequest)} | ${r.loop ? `${fmt(r.loop.p50, 1)} / ${fmt(r.loop.p99, 1)} / ${fmt(r.loop.max, 1)}` : '—'} | ${fmt(r.failed)} |`,
    );
  }
  if (largest && smallest && rows.length > 1) {
    const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
    lines.push(
      '',
      `Targets at the largest size (${fmt(largest.ips)} IPs; issue 19 states them at 1,000,000): ` +
        `ready ≤ ${TARGETS.readyMs / 1000} s ${verdict(largest.readyMs <= TARGETS.readyMs)}, ` +
        `RSS ready ≤ ${TARGETS.rssMb} MB ${largest.rssReadyMb === null ? '—' : verdict(largest.rssReadyMb <= TARGETS.rssMb)}, ` +
        `score req/s ≥ ${Math.round(TARGETS.rpsVsSmallest * 100)}% of ${fmt(smallest.ips)} IPs' ${verdict(largest.rps >= TARGETS.rpsVsSmallest * smallest.rps)}.`,
    );
  }
  return lines.join('\n');
}
