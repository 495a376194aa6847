/**
 * The temporal hold-out's numbers from one run: every sample was scored at its publication time t with only what was
 * known at t, and is judged by what only became known after t (the ground truth over the horizon, and the reports
 * written later). Arithmetic from src/domain/quality, the same the deployment's model report uses.
 */
import { rocAuc, rocCurve, type RocPoint, type Sample } from '../../src/domain/quality/auc.ts';
import { calibrationError, reliabilityTable, type ReliabilityBin } from '../../src/domain/quality/reliability.ts';
import { levelTable, precisionOf, type LevelRow } from '../../src/domain/quality/levels.ts';
import { earlyWarning, type EarlyWarning } from '../../src/domain/quality/early-warning.ts';
import { checkTargets, type TargetCheck } from '../../src/domain/quality/targets.ts';
import type { RunResult } from './drive.ts';
import type { World } from './world.ts';

export type Measures = {
  samples: number;
  abusive: number;
  auc: number | null;
  /** AUC against "reported bad later" instead of the ground truth. */
  aucReportedLater: number | null;
  workspaceAuc: Array<{ workspace: string; role: string; auc: number | null }>;
  levels: LevelRow[];
  highCriticalPrecision: number | null;
  reliability: ReliabilityBin[];
  calibrationError: number | null;
  roc: RocPoint[];
  earlyWarning: EarlyWarning;
  latency: { probes: number; atOnce: number; meanPublications: number | null; neverReflected: number };
  robustness: RunResult['robustness'];
  targets: TargetCheck[];
};

/** Keeps a curve drawable: at most `max` points, always the first and last. */
function thin(points: RocPoint[], max = 400): RocPoint[] {
  if (points.length <= max) return points;
  const step = (points.length - 1) / (max - 1);
  return Array.from({ length: max }, (_, i) => points[Math.round(i * step)]!);
}

export function measure(world: World, run: RunResult): Measures {
  const truth: Sample[] = run.observations.map((o) => ({ score: o.overall, bad: o.truth }));
  const levels = levelTable(truth);
  const reliability = reliabilityTable(truth);
  const reporters = world.workspaces.filter((w) => w.role === 'honest' || w.role === 'careless');
  const reflected = run.latency.filter((l) => l.publications !== null);
  const ew = earlyWarning(run.observations.filter((o) => o.firstReportedLater).map((o) => o.overall));
  const auc = rocAuc(truth);
  const highCriticalPrecision = precisionOf(levels, ['high', 'critical']);
  return {
    samples: truth.length,
    abusive: truth.filter((s) => s.bad).length,
    auc,
    aucReportedLater: rocAuc(run.observations.map((o) => ({ score: o.overall, bad: o.reportedLater }))),
    workspaceAuc: reporters.map((w, i) => ({
      workspace: w.name,
      role: w.role,
      auc: rocAuc(run.observations.map((o) => ({ score: o.own[i]!, bad: o.truth }))),
    })),
    levels,
    highCriticalPrecision,
    reliability,
    calibrationError: calibrationError(reliability),
    roc: thin(rocCurve(truth)),
    earlyWarning: ew,
    latency: {
      probes: run.latency.length,
      atOnce: run.latency.filter((l) => l.publications === 0).length,
      meanPublications: reflected.length ? reflected.reduce((n, l) => n + l.publications!, 0) / reflected.length : null,
      neverReflected: run.latency.length - reflected.length,
    },
    robustness: run.robustness,
    targets: checkTargets({
      auc,
      highCriticalPrecision,
      levels,
      earlyWarning: ew.share,
      hostileSubnetScore: run.robustness.worstSubnetScore,
      hostileAsnScore: run.robustness.worstAsnScore,
    }),
  };
}
