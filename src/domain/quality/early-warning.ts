/**
 * Early warning: of the IPs that were first reported bad after a time t, the share the model already placed at
 * `medium` or higher at t. It asks what a user gains by asking before their own reports (or anyone's) arrive.
 */
import { riskLevel, type RiskLevel } from '../scoring/levels.ts';

export const WARNING_LEVELS: readonly RiskLevel[] = ['medium', 'high', 'critical'];

export type EarlyWarning = {
  /** IPs first reported bad after their sample time. */
  cases: number;
  /** Of them, those at medium or higher at the sample time. */
  warned: number;
  /** warned / cases; null when there was no case. */
  share: number | null;
};

/** `scoresAtT`: the score each later-reported IP had at its sample time. */
export function earlyWarning(scoresAtT: readonly number[]): EarlyWarning {
  let warned = 0;
  for (const s of scoresAtT) if (WARNING_LEVELS.includes(riskLevel(s))) warned++;
  return { cases: scoresAtT.length, warned, share: scoresAtT.length ? warned / scoresAtT.length : null };
}
