import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { Histogram } from 'prom-client';
import { Metrics } from '../../src/platform/metrics.ts';
import { registerStateGauges } from '../../src/domain/observability/state-gauges.ts';
import { createLogger } from '../../src/platform/log.ts';

/**
 * deploy/'s alert rules and Grafana dashboard: promtool accepts the rules, every alert the operations guide lists is
 * there, and every metric either names is one the service exports (a renamed metric would silence an alert).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const RULES = path.join(ROOT, 'deploy/prometheus-alerts.yml');
const DASHBOARD = path.join(ROOT, 'deploy/grafana-dashboard.json');
const HAS_PROMTOOL = spawnSync('promtool', ['--version']).error === undefined;

type Rule = { alert: string; expr: string; labels: { severity: string }; annotations: { summary: string } };
const rules = (parse(readFileSync(RULES, 'utf8')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap(
  (g) => g.rules,
);
const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
};

/** Every series name the service exports, as app.ts registers them (the database's gauges too, never read here):
 *  each metric, and a histogram's _bucket, _count and _sum. */
function exportedSeries(): Set<string> {
  const metrics = new Metrics();
  registerStateGauges(metrics, { prisma: {} as never, publications: {} as never, log: createLogger('silent') });
  const names = new Set<string>();
  for (const m of metrics.registry.getMetricsAsArray()) {
    const name = (m as unknown as { name: string }).name;
    names.add(name);
    if (m instanceof Histogram) for (const s of ['_bucket', '_count', '_sum']) names.add(`${name}${s}`);
  }
  return names;
}

/** The metric names in a PromQL expression (label values, in quotes, left out). */
const metricNames = (expr: string) =>
  [...expr.replace(/"[^"]*"/g, '""').matchAll(/\b(?:risk|http|nodejs|process)_[a-z0-9_]+/g)].map((m) => m[0]);

describe('deploy/ monitoring', () => {
  it.skipIf(!HAS_PROMTOOL)('promtool check rules accepts the alert rules', () => {
    const r = spawnSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' });
    expect(r.stderr + r.stdout).toContain('SUCCESS: 5 rules found');
    expect(r.status).toBe(0);
  });
  if (!HAS_PROMTOOL)
    it.skip('promtool check rules: SKIPPED, promtool is not installed (apt-get install prometheus; .ci/run does)', () => {});

  it('holds the five alerts, each with a severity and a summary', () => {
    expect(rules.map((r) => r.alert).sort()).toEqual([
      'RiskApi5xxRate',
      'RiskApiEventLoopLag',
      'RiskApiPublicationStale',
      'RiskApiQuotaStoreDown',
      'RiskApiWebhookEndpointFailing',
    ]);
    for (const r of rules) {
      expect(['warning', 'critical'], r.alert).toContain(r.labels.severity);
      expect(r.annotations.summary, r.alert).toBeTruthy();
    }
  });

  it('names only metrics the service exports, in the rules and on every dashboard panel', () => {
    const exported = exportedSeries();
    const named = [
      ...rules.flatMap((r) => metricNames(r.expr).map((n) => [r.alert, n] as const)),
      ...dashboard.panels.flatMap((p) =>
        p.targets.flatMap((t) => metricNames(t.expr).map((n) => [p.title, n] as const)),
      ),
    ];
    expect(named.length).toBeGreaterThan(15);
    for (const [where, name] of named) expect(exported.has(name), `${where}: ${name}`).toBe(true);
    for (const p of dashboard.panels) expect(p.targets.length, p.title).toBeGreaterThan(0);
  });
});
