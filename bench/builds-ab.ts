/**
 * `npx tsx bench/builds-ab.ts --before <bundle> [--after <bundle>]`: the server CPU per call of two builds, side by
 * side, on a loaded machine where a comparison across runs moves more than the difference sought. Both builds run at
 * once over ONE PostgreSQL database seeded once and each over its own Redis key prefix; wrk (1 thread, 32
 * connections) drives one build at a time, in rotation, each scenario in turn, and the server's CPU over each window
 * comes from /proc (bench/cpu.ts). Prints the median µs per call of each build and their ratio per scenario.
 *
 * `--rounds N` (default 4), `--duration S` seconds per window (default 5), `--ips N` seeded (default 20000),
 * `--scenarios a,b` (default score-rest,score-graphql,score-mcp,score-batch).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { buildDataset } from './dataset.ts';
import { seed } from './seed.ts';
import { postgresBackend, serviceEnv } from './backends.ts';
import { buildService, startScriptEnv, startServer, stopAll } from './children.ts';
import { measure } from './load.ts';
import { cpuWindow } from './cpu.ts';
import { requestsOf, scenarios, type ScenarioName } from './scenarios.ts';
import { scoreGraphQLQuery } from './graphql-score.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string' },
    rounds: { type: 'string', default: '4' },
    duration: { type: 'string', default: '5' },
    ips: { type: 'string', default: '20000' },
    scenarios: { type: 'string', default: 'score-rest,score-graphql,score-mcp,score-batch' },
  },
});
if (!args.before) throw new Error('--before <bundle> is required (a dist/server/main.mjs built from the base commit)');
const KEYS = 16;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const afterBundle = args.after ? path.resolve(args.after) : buildService(ROOT);
  const backend = await postgresBackend({ label: 'builds_ab' });
  try {
    const data = await buildDataset(Number(args.ips));
    const pepper = randomBytes(32).toString('hex');
    const seeded = await seed({ databaseUrl: backend.databaseUrl, dataDir: backend.dataDir, pepper }, data, KEYS);
    const prefix = backend.env.REDIS_KEY_PREFIX!;
    const env = (name: string) =>
      startScriptEnv(
        ROOT,
        serviceEnv({ API_KEY_PEPPER: pepper, ...backend.env, REDIS_KEY_PREFIX: `${prefix}${name}:` }),
      );
    const builds = [
      { name: 'before', svc: await startServer('before', path.resolve(args.before!), env('before'), '/readyz', ROOT) },
      { name: 'after', svc: await startServer('after', afterBundle, env('after'), '/readyz', ROOT) },
    ];
    const all = scenarios((await scoreGraphQLQuery(`${builds[1]!.svc.baseUrl}/graphql`, seeded.keys[0]!)).query);
    const names = args.scenarios!.split(',') as ScenarioName[];
    const cpu = new Map<string, number[]>();
    for (let round = 0; round < Number(args.rounds); round++) {
      const order = round % 2 ? [...builds].reverse() : builds; // neither build always goes first
      for (const name of names) {
        const s = all[name];
        const requests = requestsOf(s, data.ips, seeded.keys, 4096);
        const failMarker = s.failMarker ?? (s.graphql ? '"errors"' : s.mcp ? '"isError":true' : null);
        for (const b of order) {
          const load = { connections: 32, failMarker, threads: 1 };
          await measure(b.svc.baseUrl, requests, { ...load, durationS: 1 });
          const window = cpuWindow(b.svc.child.proc.pid);
          const result = await measure(b.svc.baseUrl, requests, { ...load, durationS: Number(args.duration) });
          const use = window(result.requests);
          const perCall = (use?.serverUsPerRequest ?? NaN) / (s.ipsPerRequest ?? 1);
          const key = `${name}|${b.name}`;
          cpu.set(key, [...(cpu.get(key) ?? []), perCall]);
          console.log(
            `round ${round + 1} ${name} ${b.name}: ${Math.round(result.rps)} req/s, failed ${result.failed}, ${Math.round(perCall)} µs/${s.ipsPerRequest ? 'IP' : 'call'}`,
          );
        }
      }
    }
    console.log('\n| scenario | before µs | after µs | after / before |\n|---|--:|--:|--:|');
    for (const name of names) {
      const before = median(cpu.get(`${name}|before`)!);
      const after = median(cpu.get(`${name}|after`)!);
      console.log(`| ${name} | ${Math.round(before)} | ${Math.round(after)} | ${(after / before).toFixed(2)} |`);
    }
  } finally {
    await stopAll();
    await backend.remove();
  }
}

await main();
