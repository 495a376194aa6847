import { describe, expect, it, vi } from 'vitest';
import type { Measures } from '../../bench/evaluate/measure.ts';
import { formatTable } from '../../bench/evaluate/table.ts';
import { chartSvg } from '../../bench/evaluate/chart.ts';
import { RISK_LEVELS } from '../../src/domain/scoring/levels.ts';
import { backendName } from '../helpers/backend.ts';
import { runTestWorld } from '../helpers/evaluate-world.ts';

/**
 * The evaluation end to end on the test world (bench/evaluate, TEST_WORLD): written through the write path,
 * published hour by hour, scored through the score path. The world is too small for the targets; what is checked is
 * that every measure is there, of the right shape, and says what the world holds. The full world is a bench
 * (npm run evaluate), not a test.
 *
 * Then the measure must be able to fail: the same world with every evidence weight's sign reversed (bad reports and
 * feed listings counted as benign, benign ones as bad) misses the targets and ranks far worse.
 */
describe(`the evaluation world, end to end (${backendName})`, () => {
  let sound: Measures | undefined;

  it('runs, and its table holds every measure', { timeout: 600_000 }, async () => {
    const { world, run, measures: m } = await runTestWorld();
    sound = m;
    expect(run.publications).toBe(world.hours);
    expect(run.written.reports).toBeGreaterThan(50);
    expect(run.written.ratings).toBeGreaterThan(0);
    expect(run.written.feedImports).toBeGreaterThan(0);
    expect(m.samples).toBe([...world.samples.values()].flat().length);
    expect(m.abusive).toBeGreaterThan(10);
    expect(m.samples - m.abusive).toBeGreaterThan(10);

    expect(m.levels.map((r) => r.level)).toEqual(RISK_LEVELS.map((l) => l.level));
    expect(m.levels.reduce((n, r) => n + r.count, 0)).toBe(m.samples);
    expect(m.reliability).toHaveLength(10);
    expect(m.reliability.reduce((n, b) => n + b.count, 0)).toBe(m.samples);
    expect(m.roc[0]).toMatchObject({ fpr: 0, tpr: 0 });
    expect(m.roc.at(-1)).toMatchObject({ fpr: 1, tpr: 1 });
    expect(m.workspaceAuc.map((w) => w.role)).toEqual(['honest', 'honest', 'careless']);
    expect(m.targets.map((t) => t.name)).toEqual([
      'ROC AUC',
      'precision high+critical',
      'bad rate rises with level',
      'early warning',
      'hostile reporter, benign /24',
      'hostile reporter, benign AS',
    ]);
    // Every probe is a report an honest workspace wrote; each is reflected or counted as never reflected.
    expect(m.latency.probes).toBeGreaterThan(0);
    expect(m.latency.atOnce + m.latency.neverReflected).toBeLessThanOrEqual(m.latency.probes);
    // The hostile reporter's targets were reached by its reports (so the robustness check measured something).
    expect(m.robustness.subnet).toMatch(/\/\d+$/);
    expect(m.robustness.worstSubnetScore).toBeGreaterThan(0);
    expect(m.robustness.worstAsnScore).toBeGreaterThan(0);

    expect(m.auc).not.toBeNull();

    const table = formatTable(m, world.params, backendName);
    for (const heading of ['| target |', '| level |', '| score decile |', '| workspace (own view) |', 'Latency:'])
      expect(table).toContain(heading);
    const svg = chartSvg(m, 'test world');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('Reliability');
    expect(svg).toContain('ROC, AUC');
  });

  it('fails the targets with a broken model: weights reversed', { timeout: 600_000 }, async () => {
    expect(sound, 'the sound run comes first').toBeDefined();
    vi.resetModules();
    vi.doMock('../../src/domain/scoring/weights.ts', async (importOriginal) => {
      const real = await importOriginal<typeof import('../../src/domain/scoring/weights.ts')>();
      const reversed = Object.fromEntries(Object.entries(real.OUTCOME_WEIGHTS).map(([code, w]) => [code, -w]));
      return {
        ...real,
        OUTCOME_WEIGHTS: reversed,
        RATING_WEIGHTS: { [-1]: -real.RATING_WEIGHTS[-1], 0: 0, 1: -real.RATING_WEIGHTS[1] },
        FEED_MASS: -real.FEED_MASS,
      };
    });
    const { runTestWorld: runBroken } = await import('../helpers/evaluate-world.ts');
    const { measures: broken } = await runBroken();
    vi.doUnmock('../../src/domain/scoring/weights.ts');
    const missed = broken.targets.filter((t) => !t.met).map((t) => t.name);
    expect(missed).toContain('ROC AUC');
    expect(missed).toContain('early warning');
    expect(broken.auc!).toBeLessThan(sound!.auc! - 0.15);
  });
});
