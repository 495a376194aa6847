/**
 * CLI timings (issue: --help under 300 ms): wall time of `risk-api --help`, `--version` and a refused option, beside
 * the floor any `npx risk-api` pays (node alone, and node with tsx registered, which runs the TypeScript sources).
 * Medians of --runs runs each (default 15), one row per command, as a Markdown table for docs/benchmarks.md, after
 * a line with the machine's load (a figure taken on a busy machine is not the quiet one the target is about).
 * Each command's exit status is checked: a row whose command failed says so instead of timing the failure.
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
const rows: Array<[string, string[], boolean]> = [
  ['node -e 0 (floor: Node alone)', ['-e', '0'], true],
  ['node + tsx registered (floor of any risk-api command)', ['--import', 'tsx/esm', '-e', '0'], true],
  ['risk-api --help', [BIN, '--help'], true],
  ['risk-api --version', [BIN, '--version'], true],
  [
    'risk-api feeds import F --name x --weight 7 (refused)',
    [BIN, 'feeds', 'import', 'F', '--name', 'x', '--weight', '7'],
    false,
  ],
  ['risk-api tiers list (loads the command code and the database)', [BIN, 'tiers', 'list'], true],
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const load = loadavg().map((l) => l.toFixed(1));
console.log(`Load average ${load.join(', ')} on ${cpus().length} cores, Node ${process.version}.\n`);
console.log(`| command | median ms (${runs} runs) | min ms |\n|---|---|---|`);
for (const [label, args, succeeds] of rows) {
  const times: number[] = [];
  let failed = '';
  for (let i = 0; i < runs && !failed; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
    times.push(performance.now() - t);
    if ((r.status === 0) !== succeeds) failed = `exit ${r.status ?? r.signal}`;
  }
  if (failed) console.log(`| ${label} | ${failed}: not timed | |`);
  else console.log(`| ${label} | ${Math.round(median(times))} | ${Math.round(Math.min(...times))} |`);
}
