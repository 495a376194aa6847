/**
 * `npm run evaluate:sweep [-- --sets default,persistent,noisy] [--seeds 1-7] [--diagnose] [--out DIR] [--flag v ...]`
 *
 * The quality table over several seeds and parameter sets (params.ts PARAMETER_SETS), each world scored by the
 * replay (replay.ts: the model's own functions, no database), one row per world: ROC AUC, precision and share of all
 * abusive per level, calibration error, early warning. Writes bench/results/quality-sweep.{md,json}.
 * --diagnose adds, per world, where the false highs and the early-warning misses come from (diagnose.ts).
 * --subnet-at-24 scores a counterfactual: IPv4 subnets larger than a /24 replaced by the /24 (neighbourhood.ts).
 * Extra `--name value` flags apply to every set. Runs the worlds one after another (CPU-heavy: never two sweeps at once).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadNetworkData } from '../../src/domain/network/index.ts';
import { NetworkCatalogue } from './networks.ts';
import { PARAMETER_SETS, parseParams } from './params.ts';
import { buildWorld } from './world.ts';
import { replayWorld } from './replay.ts';
import { measure, type Measures } from './measure.ts';
import { diagnose, formatDiagnosis, type Diagnosis } from './diagnose.ts';
import { withSubnetAt24 } from './neighbourhood.ts';

function take(argv: string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  if (i < 0) return undefined;
  const [, value] = argv.splice(i, 2);
  if (value === undefined) throw new Error(`${flag} needs a value`);
  return value;
}

/** "1-7" or "1,3,9" → seeds. */
export function parseSeeds(text: string): number[] {
  const range = /^(\d+)-(\d+)$/.exec(text);
  if (range) {
    const [from, to] = [Number(range[1]), Number(range[2])];
    if (to < from || to - from > 100) throw new Error('--seeds range must be ascending and at most 100 long');
    return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  }
  const seeds = text.split(',').map(Number);
  if (seeds.some((s) => !Number.isInteger(s) || s < 0)) throw new Error('--seeds takes N-M or a list of integers');
  return seeds;
}

const pct = (x: number | null) => (x === null ? 'n/a' : `${(100 * x).toFixed(1)}%`);
const num = (x: number | null, digits = 3) => (x === null ? 'n/a' : x.toFixed(digits));

export type SweepRow = { set: string; seed: number; measures: Measures; diagnosis?: Diagnosis };

export function formatSweep(rows: readonly SweepRow[]): string {
  const head =
    '| set | seed | samples | abusive | AUC | precision high+critical | ECE | early warning | rising | ' +
    'precision min/low/med/high/crit | share min/low/med/high/crit | hostile /24, AS |';
  const lines = [head, `|${'---|'.repeat(12)}`];
  for (const { set, seed, measures: m } of rows) {
    const rising = m.targets.find((t) => t.name.startsWith('bad rate'))?.met ? 'yes' : '**no**';
    lines.push(
      `| ${set} | ${seed} | ${m.samples} | ${m.abusive} | ${num(m.auc)} | ${num(m.highCriticalPrecision)} | ` +
        `${num(m.calibrationError)} | ${num(m.earlyWarning.share)} (${m.earlyWarning.warned}/${m.earlyWarning.cases}) | ` +
        `${rising} | ${m.levels.map((l) => pct(l.precision)).join(' / ')} | ` +
        `${m.levels.map((l) => pct(l.shareOfBad)).join(' / ')} | ` +
        `${m.robustness.worstSubnetScore}, ${m.robustness.worstAsnScore} |`,
    );
  }
  return lines.join('\n');
}

/** Mean of each headline figure per set: what a change is judged on, with the per-seed rows beside it. */
export function formatMeans(rows: readonly SweepRow[]): string {
  const sets = [...new Set(rows.map((r) => r.set))];
  const lines = [
    '| set | seeds | mean AUC | mean precision high+critical | mean ECE | mean early warning |',
    '|---|---|---|---|---|---|',
  ];
  const mean = (xs: Array<number | null>) => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
  };
  for (const set of sets) {
    const of = rows.filter((r) => r.set === set).map((r) => r.measures);
    lines.push(
      `| ${set} | ${of.length} | ${num(mean(of.map((m) => m.auc)))} | ${num(mean(of.map((m) => m.highCriticalPrecision)))} | ` +
        `${num(mean(of.map((m) => m.calibrationError)))} | ${num(mean(of.map((m) => m.earlyWarning.share)))} |`,
    );
  }
  return lines.join('\n');
}

async function main() {
  const argv = process.argv.slice(2);
  const sets = (take(argv, '--sets') ?? 'default').split(',');
  const seeds = parseSeeds(take(argv, '--seeds') ?? '1-7');
  const out = take(argv, '--out') ?? path.join(import.meta.dirname, '..', 'results');
  const diagnoseIt = argv.includes('--diagnose');
  if (diagnoseIt) argv.splice(argv.indexOf('--diagnose'), 1);
  const at24 = argv.includes('--subnet-at-24');
  if (at24) argv.splice(argv.indexOf('--subnet-at-24'), 1);
  for (const set of sets) if (!(set in PARAMETER_SETS)) throw new Error(`unknown set ${set}`);

  const loaded = await loadNetworkData();
  const network = at24 ? withSubnetAt24(loaded) : loaded;
  const catalogue = NetworkCatalogue.load();
  const rows: SweepRow[] = [];
  for (const set of sets) {
    for (const seed of seeds) {
      const params = parseParams(['--seed', String(seed), ...argv], PARAMETER_SETS[set]);
      const started = performance.now();
      const world = buildWorld(params, catalogue);
      const { run, details } = replayWorld(world, network, { ownViews: false });
      const measures = measure(world, run);
      const row: SweepRow = { set, seed, measures };
      if (diagnoseIt) row.diagnosis = diagnose(world, run, details);
      rows.push(row);
      console.error(
        `${set} seed ${seed}: AUC ${num(measures.auc)}, precision high+critical ${num(measures.highCriticalPrecision)}, ` +
          `early warning ${num(measures.earlyWarning.share)} (${Math.round((performance.now() - started) / 1000)} s)`,
      );
      if (row.diagnosis) console.error(formatDiagnosis(row.diagnosis));
    }
  }
  const text = `${formatMeans(rows)}\n\n${formatSweep(rows)}`;
  console.log(text);
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'quality-sweep.md'), `${text}\n`);
  writeFileSync(
    path.join(out, 'quality-sweep.json'),
    `${JSON.stringify(
      rows.map((r) => ({
        set: r.set,
        seed: r.seed,
        measures: { ...r.measures, roc: undefined },
        diagnosis: r.diagnosis,
      })),
      null,
      1,
    )}\n`,
  );
}

if (process.argv[1] && import.meta.filename === path.resolve(process.argv[1])) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 2;
  });
}
