/**
 * The quality targets the score is held to on a simulated world (npm run evaluate), in one place: the evaluation
 * prints each as met or missed, and the test that runs a deliberately broken model expects some to be missed.
 */
import { riskLevel, type RiskLevel } from '../scoring/levels.ts';
import { inversions, type LevelRow } from './levels.ts';

export const QUALITY_TARGETS = Object.freeze({
  /** ROC AUC of overall_score against the ground truth. */
  minAuc: 0.9,
  /** Share of truly abusive IPs among those scored high or critical. */
  minHighCriticalPrecision: 0.8,
  /** Of the IPs first reported bad after t, the share already medium or higher at t. */
  minEarlyWarning: 0.5,
  /** The worst level one hostile reporter may bring a benign /24 or AS to. */
  maxHostileLevel: 'low' as RiskLevel,
  /** A level needs this many samples before its bad rate counts in the no-inversion check. */
  minLevelSamples: 20,
});

export type TargetInput = {
  auc: number | null;
  highCriticalPrecision: number | null;
  levels: readonly LevelRow[];
  earlyWarning: number | null;
  /** Worst score a hostile reporter brought its benign /24 and AS to. */
  hostileSubnetScore: number;
  hostileAsnScore: number;
};

export type TargetCheck = { name: string; target: string; value: string; met: boolean };

const LEVEL_RANK: Record<RiskLevel, number> = { minimal: 0, low: 1, medium: 2, high: 3, critical: 4 };
const fixed = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));

export function checkTargets(m: TargetInput): TargetCheck[] {
  const t = QUALITY_TARGETS;
  const inverted = inversions(m.levels, t.minLevelSamples);
  const within = (score: number) => LEVEL_RANK[riskLevel(score)] <= LEVEL_RANK[t.maxHostileLevel];
  return [
    { name: 'ROC AUC', target: `>= ${t.minAuc}`, value: fixed(m.auc), met: m.auc !== null && m.auc >= t.minAuc },
    {
      name: 'precision high+critical',
      target: `>= ${t.minHighCriticalPrecision}`,
      value: fixed(m.highCriticalPrecision),
      met: m.highCriticalPrecision !== null && m.highCriticalPrecision >= t.minHighCriticalPrecision,
    },
    {
      name: 'bad rate rises with level',
      target: 'no inversion',
      value: inverted.length ? `inverted at ${inverted.join(', ')}` : 'rising',
      met: inverted.length === 0,
    },
    {
      name: 'early warning',
      target: `>= ${t.minEarlyWarning}`,
      value: fixed(m.earlyWarning),
      met: m.earlyWarning !== null && m.earlyWarning >= t.minEarlyWarning,
    },
    {
      name: 'hostile reporter, benign /24',
      target: `<= ${t.maxHostileLevel}`,
      value: `${m.hostileSubnetScore} (${riskLevel(m.hostileSubnetScore)})`,
      met: within(m.hostileSubnetScore),
    },
    {
      name: 'hostile reporter, benign AS',
      target: `<= ${t.maxHostileLevel}`,
      value: `${m.hostileAsnScore} (${riskLevel(m.hostileAsnScore)})`,
      met: within(m.hostileAsnScore),
    },
  ];
}
