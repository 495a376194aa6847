/** The evaluation's numbers as the text table `npm run evaluate` prints (Markdown, so docs/risk-model.md can carry it). */
import type { Measures } from './measure.ts';
import type { WorldParams } from './params.ts';

const pct = (x: number | null) => (x === null ? 'n/a' : `${(100 * x).toFixed(1)}%`);
const num = (x: number | null, digits = 3) => (x === null ? 'n/a' : x.toFixed(digits));

export function formatTable(m: Measures, params: WorldParams, backend: string): string {
  const lines: string[] = [];
  lines.push(
    `World seed ${params.seed}, ${params.weeks} weeks, ${backend}: ${m.samples} samples, ${m.abusive} abusive ` +
      `(${pct(m.abusive / Math.max(1, m.samples))}).`,
    '',
    '| target | wanted | measured | met |',
    '|---|---|---|---|',
    ...m.targets.map((t) => `| ${t.name} | ${t.target} | ${t.value} | ${t.met ? 'yes' : '**no**'} |`),
    '',
    `ROC AUC against later reports: ${num(m.aucReportedLater)}; calibration error (ECE): ${num(m.calibrationError)}; ` +
      `early warning ${m.earlyWarning.warned}/${m.earlyWarning.cases}.`,
    '',
    '| level | IPs | abusive | precision | share of all abusive |',
    '|---|---|---|---|---|',
    ...m.levels.map((r) => `| ${r.level} | ${r.count} | ${r.bad} | ${pct(r.precision)} | ${pct(r.shareOfBad)} |`),
    '',
    '| score decile | IPs | mean score | bad rate |',
    '|---|---|---|---|',
    ...m.reliability.map((b) => `| ${b.min}-${b.max} | ${b.count} | ${num(b.meanScore, 1)} | ${pct(b.badRate)} |`),
    '',
    '| workspace (own view) | role | ROC AUC |',
    '|---|---|---|',
    ...m.workspaceAuc.map((w) => `| ${w.workspace} | ${w.role} | ${num(w.auc)} |`),
    '',
    `Latency: ${m.latency.atOnce} of ${m.latency.probes} own reports reflected in the workspace's own score at once ` +
      `(0 publications); mean publications until reflected ${num(m.latency.meanPublications, 2)}; ` +
      `${m.latency.neverReflected} not reflected within 6.`,
    `Hostile reporter: benign subnet ${m.robustness.subnet} worst ${m.robustness.worstSubnetScore}, benign ` +
      `${m.robustness.asn} worst ${m.robustness.worstAsnScore}, worst bystander IP inside them ` +
      `${m.robustness.worstBystanderScore}.`,
  );
  return lines.join('\n');
}
