/**
 * `risk-api db move` at size (docs/scaling.md): an embedded database holding a publication of MOVE_IPS published
 * IPs (default 1,000,000; with their subnets and networks, and the publication's image), plus the bench workspace's
 * ratings and reports on a tenth of them, moved into a fresh PostgreSQL database with the progress display on
 * stderr. Prints the seed and move times, the move's CPU time and peak memory (from /proc, sampled while it runs),
 * the machine's load average, and the CLI's table report. Not part of `npm test` (minutes).
 *
 * Also prints the CPU of the target's PostgreSQL backend serving the move (found in pg_stat_activity by database,
 * sampled from /proc like the move's own), and the seconds the copy and the read-back each took.
 *
 *   npm run bench:move                 (MOVE_IPS=1000000)
 *   MOVE_IPS=50000 npm run bench:move
 *   MOVE_CPU_PROF=bench/profiles MOVE_IPS=100000 npm run bench:move    (a V8 CPU profile of the move process)
 *
 * MOVE_DATA_DIR=/path keeps the seeded source there, and a later run with the same MOVE_DATA_DIR moves it again
 * without seeding (seeding takes longer than the move: the memory goes through the service's write path).
 * MOVE_SEED_ONLY=1 (with MOVE_DATA_DIR) only seeds. MOVE_WRITTEN_IPS caps the IPs given the workspace's ratings and reports (a tenth of MOVE_IPS otherwise).
 */
import { spawn } from 'node:child_process';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { ADMIN_PG_URL, embeddedBackend, postgresBackend } from './backends.ts';
import { buildDataset } from './dataset.ts';
import { seed } from './seed.ts';
import { memoryOf } from './children.ts';
import { cpuSecondsOf } from './cpu.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const IPS = Number(process.env.MOVE_IPS ?? 1_000_000);
const SAMPLE_MS = 250;
const PROFILE_DIR = process.env.MOVE_CPU_PROF;
const KEPT_DIR = process.env.MOVE_DATA_DIR;
const WRITTEN_IPS = Number(process.env.MOVE_WRITTEN_IPS ?? Number.POSITIVE_INFINITY);

/** The source to move: seeded now, or kept from an earlier run in MOVE_DATA_DIR (its pepper beside it). */
async function source(): Promise<{ dataDir: string; pepper: string; remove(): Promise<void> }> {
  const fresh = KEPT_DIR ? { dataDir: path.resolve(KEPT_DIR), remove: async () => {} } : embeddedBackend();
  const pepperFile = path.join(fresh.dataDir, 'bench-pepper');
  if (KEPT_DIR && existsSync(pepperFile)) {
    console.error(`moving the database kept in ${fresh.dataDir} (not seeded again)`);
    return { ...fresh, pepper: readFileSync(pepperFile, 'utf8') };
  }
  mkdirSync(fresh.dataDir, { recursive: true });
  const pepper = randomBytes(32).toString('hex');
  const data = await buildDataset(IPS);
  const seeded = await seed({ dataDir: fresh.dataDir, pepper }, data, 1, 1, WRITTEN_IPS);
  console.error(
    `seeded ${IPS.toLocaleString('en-US')} IPs: ${seeded.rows.toLocaleString('en-US')} published rows and the memory ` +
      `of ${seeded.writtenIps.length.toLocaleString('en-US')} IPs in ${seeded.seedMs} ms (publication ` +
      `${seeded.publicationMs} ms, memory ${seeded.memoryMs} ms; load average ${loadavg()[0]!.toFixed(1)})`,
  );
  if (KEPT_DIR) writeFileSync(pepperFile, pepper);
  return { ...fresh, pepper };
}

/** The pids of the PostgreSQL backends connected to `databaseUrl`'s database (the move's own connection). */
async function backendsOf(admin: pg.Client, databaseUrl: string): Promise<number[]> {
  const database = new URL(databaseUrl).pathname.slice(1);
  const rows = await admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [database],
  );
  return rows.rows.map((r) => r.pid);
}

async function main() {
  const from = await source();
  if (KEPT_DIR && process.env.MOVE_SEED_ONLY) return; // seeded and kept: a later run moves it
  const { pepper } = from;
  const target = await postgresBackend({ label: 'move' });
  try {
    const admin = new pg.Client({ connectionString: ADMIN_PG_URL });
    await admin.connect();
    const loadBefore = loadavg()[0]!;
    const started = performance.now();
    let peakMb = 0;
    let cpuS = 0;
    const backendCpuS = new Map<number, number>();
    let verifyingAtS = NaN;
    let report = '';
    const code = await new Promise<number>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`] : []),
          path.join(ROOT, 'bin/risk-api.mjs'),
          'db',
          'move',
          '--to',
          target.databaseUrl!,
        ],
        {
          env: {
            PATH: process.env.PATH!,
            DATA_DIR: from.dataDir,
            API_KEY_PEPPER: pepper,
            REDIS_URL: target.env.REDIS_URL!,
            REDIS_KEY_PREFIX: target.env.REDIS_KEY_PREFIX!.replace(/:$/, ''),
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child.stderr.on('data', (chunk: Buffer) => {
        if (Number.isNaN(verifyingAtS) && chunk.includes('verifying'))
          verifyingAtS = (performance.now() - started) / 1000;
        process.stderr.write(chunk);
      });
      child.stdout.on('data', (chunk: Buffer) => {
        report += chunk.toString();
        process.stdout.write(chunk);
      });
      // The last sample is at most SAMPLE_MS before the exit: the CPU time is short by at most that.
      const sample = setInterval(() => {
        const memory = memoryOf(child.pid);
        if (memory && Number.isFinite(memory.peakMb)) peakMb = memory.peakMb;
        cpuS = cpuSecondsOf(child.pid) ?? cpuS;
        void backendsOf(admin, target.databaseUrl!).then(
          (pids) => {
            for (const pid of pids) backendCpuS.set(pid, cpuSecondsOf(pid) ?? backendCpuS.get(pid) ?? 0);
          },
          () => {},
        );
      }, SAMPLE_MS);
      child.on('exit', (c) => {
        clearInterval(sample);
        resolve(c ?? 1);
      });
    });
    const wallS = (performance.now() - started) / 1000;
    const moved = Number(/tables, ([\d,]+) rows/.exec(report)?.[1]?.replaceAll(',', '') ?? NaN);
    console.error(
      `db move exited ${code} after ${wallS.toFixed(1)} s: ${cpuS.toFixed(1)} s of CPU in the move process, peak RSS ` +
        `${peakMb} MB, ${moved.toLocaleString('en-US')} rows moved, ${Math.round(moved / wallS).toLocaleString('en-US')} rows/s; load average ` +
        `${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after (${availableParallelism()} cores)`,
    );
    const backendS = [...backendCpuS.values()].reduce((a, b) => a + b, 0);
    console.error(
      `copy ${verifyingAtS.toFixed(1)} s, read-back ${(wallS - verifyingAtS).toFixed(1)} s (wall); ` +
        `${backendS.toFixed(1)} s of CPU in the target's PostgreSQL backend`,
    );
    await admin.end();
    if (code !== 0) process.exitCode = 1;
  } finally {
    await from.remove();
    await target.remove();
  }
}

await main();
