/**
 * `risk-api db move` at size (docs/scaling.md): an embedded database holding a publication of MOVE_IPS published
 * IPs (default 1,000,000; with their subnets and networks, and the publication's image), plus the bench workspace's
 * ratings and reports on a tenth of them, moved into a fresh PostgreSQL database with the progress display on
 * stderr. Prints the seed and move times, the move's CPU time and peak memory (from /proc, sampled while it runs),
 * the machine's load average, and the CLI's table report. Not part of `npm test` (minutes).
 *
 *   npm run bench:move                 (MOVE_IPS=1000000)
 *   MOVE_IPS=50000 npm run bench:move
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { embeddedBackend, postgresBackend } from './backends.ts';
import { buildDataset } from './dataset.ts';
import { seed } from './seed.ts';
import { memoryOf } from './children.ts';
import { cpuSecondsOf } from './cpu.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const IPS = Number(process.env.MOVE_IPS ?? 1_000_000);
const SAMPLE_MS = 250;

async function main() {
  const source = embeddedBackend();
  const target = await postgresBackend({ label: 'move' });
  try {
    const pepper = randomBytes(32).toString('hex');
    const data = await buildDataset(IPS);
    const seeded = await seed({ dataDir: source.dataDir, pepper }, data, 1);
    console.error(
      `seeded ${IPS.toLocaleString('en-US')} IPs: ${seeded.rows.toLocaleString('en-US')} rows in ${seeded.seedMs} ms`,
    );
    const loadBefore = loadavg()[0]!;
    const started = performance.now();
    let peakMb = 0;
    let cpuS = 0;
    let report = '';
    const code = await new Promise<number>((resolve) => {
      const child = spawn(
        process.execPath,
        [path.join(ROOT, 'bin/risk-api.mjs'), 'db', 'move', '--to', target.databaseUrl!],
        {
          env: {
            PATH: process.env.PATH!,
            DATA_DIR: source.dataDir,
            API_KEY_PEPPER: pepper,
            REDIS_URL: target.env.REDIS_URL!,
            REDIS_KEY_PREFIX: target.env.REDIS_KEY_PREFIX!.replace(/:$/, ''),
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      child.stdout.on('data', (chunk: Buffer) => {
        report += chunk.toString();
        process.stdout.write(chunk);
      });
      // The last sample is at most SAMPLE_MS before the exit: the CPU time is short by at most that.
      const sample = setInterval(() => {
        const memory = memoryOf(child.pid);
        if (memory && Number.isFinite(memory.peakMb)) peakMb = memory.peakMb;
        cpuS = cpuSecondsOf(child.pid) ?? cpuS;
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
    if (code !== 0) process.exitCode = 1;
  } finally {
    await source.remove();
    await target.remove();
  }
}

await main();
