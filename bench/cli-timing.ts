/**
 * CLI timings (issue: --help under 300 ms): wall time and CPU time (user + system, all threads) of `risk-api --help`,
 * `--version` and a refused option, beside the floors measured in the same run: node alone (what the bundle,
 * dist/server/cli.mjs, pays at least) and node with tsx registered (what running the TypeScript sources pays at
 * least: a clone not built yet, or a source edited since the build). Each row also gives its median wall time over
 * node alone's, the ratio that holds when the machine is busy. Medians of --runs runs each (default 15), as a
 * Markdown table for docs/benchmarks.md, after a line with the machine's load. Each command's exit status is
 * checked: a row whose command failed says so instead of timing the failure. Needs `npm run build` first (the
 * bundle rows say so when it is older than the sources).
 *   npm run bench:cli [-- --runs N]
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpus, loadavg } from 'node:os';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin', 'risk-api.mjs');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '15' } } });
const runs = Number(values.runs);

/** [label, arguments of node, whether the command must succeed (false: it must be refused)]. */
const ENTRY = path.join(ROOT, 'src', 'cli', 'entry.ts');
const rows: Array<[string, string[], boolean]> = [
  ['node -e 0 (floor: Node alone)', ['-e', '0'], true],
  ['node + tsx registered (floor of the sources)', ['--import', 'tsx/esm', '-e', '0'], true],
  ['risk-api --help from the sources (tsx)', ['--import', 'tsx/esm', ENTRY, '--help'], true],
  ['risk-api --help', [BIN, '--help'], true],
  ['risk-api --version', [BIN, '--version'], true],
  [
    'risk-api feeds import F --name x --weight 7 (refused)',
    [BIN, 'feeds', 'import', 'F', '--name', 'x', '--weight', '7'],
    false,
  ],
  ['risk-api tiers list (loads the command code and the database)', [BIN, 'tiers', 'list'], true],
];

/** Runs node with `args` under sh, whose `times` gives the CPU time its child used: [wall ms, CPU ms, exit status]. */
function timed(args: string[]): [number, number, number | null] {
  const t = performance.now();
  const r = spawnSync('sh', ['-c', '"$@" >/dev/null 2>&1; s=$?; times; exit $s', 'sh', process.execPath, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const wall = performance.now() - t;
  // `times` prints the shell's user and system time, then its children's: "0m0.120000s 0m0.030000s".
  const children = r.stdout.trim().split('\n').at(-1) ?? '';
  const cpu = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
  return [wall, cpu * 1000, r.status];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const load = loadavg().map((l) => l.toFixed(1));
console.log(`Load average ${load.join(', ')} on ${cpus().length} cores, Node ${process.version}.\n`);
console.log(
  `| command | median wall ms (${runs} runs) | min wall ms | median CPU ms | wall / node alone |\n|---|---|---|---|---|`,
);
let floor = 0;
for (const [label, args, succeeds] of rows) {
  const walls: number[] = [];
  const cpu: number[] = [];
  let failed = '';
  for (let i = 0; i < runs && !failed; i++) {
    const [wall, used, status] = timed(args);
    walls.push(wall);
    cpu.push(used);
    if ((status === 0) !== succeeds) failed = `exit ${status}`;
  }
  if (failed) {
    console.log(`| ${label} | ${failed}: not timed | | | |`);
    continue;
  }
  floor ||= median(walls);
  console.log(
    `| ${label} | ${Math.round(median(walls))} | ${Math.round(Math.min(...walls))} | ${Math.round(median(cpu))} | ${(median(walls) / floor).toFixed(2)}× |`,
  );
}
