/**
 * Risk level words and the score bands they cover (fixed by the lead; documented in the README).
 * Every score in the service is an integer 0..100 and maps to exactly one level.
 */
export type RiskLevel = 'minimal' | 'low' | 'medium' | 'high' | 'critical';

/** Bands in ascending order; `min`/`max` are inclusive integer bounds. */
export const RISK_LEVELS: ReadonlyArray<{ level: RiskLevel; min: number; max: number }> = Object.freeze([
  { level: 'minimal', min: 0, max: 9 },
  { level: 'low', min: 10, max: 29 },
  { level: 'medium', min: 30, max: 59 },
  { level: 'high', min: 60, max: 84 },
  { level: 'critical', min: 85, max: 100 },
]);

/**
 * The level of a score. Non-integers are rounded first and out-of-range values clamped, so a
 * caller's arithmetic slip can never produce "no level".
 */
export function riskLevel(score: number): RiskLevel {
  const s = Number.isFinite(score) ? Math.min(100, Math.max(0, Math.round(score))) : 0;
  if (s >= 85) return 'critical';
  if (s >= 60) return 'high';
  if (s >= 30) return 'medium';
  if (s >= 10) return 'low';
  return 'minimal';
}
