/**
 * `npm run evaluate [-- --backend embedded|postgres] [--small] [--out DIR] [--check] [--seed N ...]`
 *
 * Builds a world (params.ts: every parameter is a flag), runs it through the service (drive.ts), prints the quality
 * table and writes it with its chart and raw numbers to bench/results/ (evaluate-latest.md, .svg, .json).
 * --check exits 1 when a target is missed; --observations FILE writes every sample (with its IP's kind) as JSON. --small runs the small world the integration test runs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadNetworkData } from '../../src/domain/network/index.ts';
import { NetworkCatalogue } from './networks.ts';
import { parseParams, SMALL_WORLD } from './params.ts';
import { buildWorld } from './world.ts';
import { openService, type BackendName } from './service.ts';
import { runWorld } from './drive.ts';
import { measure } from './measure.ts';
import { formatTable } from './table.ts';
import { chartSvg } from './chart.ts';

function take(argv: string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  if (i < 0) return undefined;
  const [, value] = argv.splice(i, 2);
  if (value === undefined) throw new Error(`${flag} needs a value`);
  return value;
}
function takeSwitch(argv: string[], flag: string): boolean {
  const i = argv.indexOf(flag);
  if (i >= 0) argv.splice(i, 1);
  return i >= 0;
}

async function main() {
  const argv = process.argv.slice(2);
  const backend = (take(argv, '--backend') ?? 'embedded') as BackendName;
  if (backend !== 'embedded' && backend !== 'postgres') throw new Error('--backend is embedded or postgres');
  const out = take(argv, '--out') ?? path.join(import.meta.dirname, '..', 'results');
  const check = takeSwitch(argv, '--check');
  const observationsFile = take(argv, '--observations');
  const params = parseParams(argv, takeSwitch(argv, '--small') ? SMALL_WORLD : {});

  const started = performance.now();
  const network = loadNetworkData();
  const world = buildWorld(params, NetworkCatalogue.load());
  console.error(`world: ${world.population.actors.length} IPs, ${world.events.length} events, ${world.hours} hours`);
  const service = await openService(
    backend,
    world.workspaces.map((w) => w.name),
    { network },
  );
  let table: string;
  let measures: ReturnType<typeof measure>;
  try {
    const run = await runWorld(world, service, (line) => console.error(line));
    measures = measure(world, run);
    if (observationsFile) {
      const rows = run.observations.map((o) => ({ ...o, kind: world.byIp.get(o.ip)!.kind }));
      writeFileSync(observationsFile, JSON.stringify({ observations: rows, latency: run.latency }));
    }
    const seconds = Math.round((performance.now() - started) / 1000);
    const meanPublish = run.publishMs.reduce((a, b) => a + b, 0) / Math.max(1, run.publishMs.length);
    table = `${formatTable(measures, params, service.backend.name)}\n\nRun: ${run.publications} publications (mean ${Math.round(meanPublish)} ms), ${run.written.reports} reports, ${run.written.ratings} ratings, ${run.written.feedImports} feed imports, ${seconds} s.`;
  } finally {
    await service.close();
  }
  console.log(table);
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'evaluate-latest.md'), `${table}\n`);
  writeFileSync(path.join(out, 'evaluate-latest.json'), `${JSON.stringify({ params, measures }, null, 1)}\n`);
  writeFileSync(
    path.join(out, 'evaluate-latest.svg'),
    chartSvg(measures, `world seed ${params.seed}, ${params.weeks} weeks, ${service.backend.name}`),
  );
  if (check && measures.targets.some((t) => !t.met)) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 2;
});
