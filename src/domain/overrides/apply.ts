import { RISK_LEVELS, riskLevel, type RiskLevel } from '../scoring/levels.ts';
import type { IpScore } from '../scoring/score.ts';
import type { HeldRule } from './rule-index.ts';
import type { OverrideAction } from './schemas.ts';
import type { TargetKind } from './target.ts';

/** The rule a score answer was changed by, as every surface shows it beside the unchanged dimensions. */
export type AppliedOverride = {
  ruleId: number;
  targetKind: TargetKind;
  target: string;
  action: OverrideAction;
  points: number;
  reason: string;
  expiresAt: Date | null;
  /** The overall score and level the published evidence gives, before the rule. */
  evidenceScore: number;
  evidenceLevel: RiskLevel;
  explanation: string;
};

const band = (level: RiskLevel) => RISK_LEVELS.find((b) => b.level === level)!;

/** The overall score a rule turns `score` into: allow pulls it down into minimal, deny up into critical, adjust adds its points. */
export function overriddenScore(score: number, rule: Pick<HeldRule, 'action' | 'points'>): number {
  switch (rule.action) {
    case 'allow':
      return Math.min(score, band('minimal').max);
    case 'deny':
      return Math.max(score, band('critical').min);
    case 'adjust':
      return Math.min(100, Math.max(0, score + rule.points));
  }
}

/**
 * The score answer under a workspace's rule: only the overall score and level change; the dimensions, their
 * evidence and contributions stay exactly as published, so the answer shows both what the evidence says
 * (override.evidenceScore) and what the workspace decided.
 */
export function applyOverride(
  score: IpScore,
  rule: HeldRule | null,
): { score: IpScore; override: AppliedOverride | null } {
  if (!rule) return { score, override: null };
  const overall = overriddenScore(score.overallScore, rule);
  const level = riskLevel(overall);
  const what = rule.action === 'adjust' ? `adjust ${rule.points > 0 ? '+' : ''}${rule.points} points` : rule.action;
  return {
    score: { ...score, overallScore: overall, overallRiskLevel: level },
    override: {
      ruleId: rule.id,
      targetKind: rule.targetKind,
      target: rule.target,
      action: rule.action,
      points: rule.points,
      reason: rule.reason,
      expiresAt: rule.expiresAt,
      evidenceScore: score.overallScore,
      evidenceLevel: score.overallRiskLevel,
      explanation:
        `Your workspace's rule ${rule.id} (${what} on ${rule.targetKind} ${rule.target}: ${rule.reason}) set the score from ` +
        `${score.overallScore} (${score.overallRiskLevel}) to ${overall} (${level}); the dimensions show the published evidence unchanged.`,
    },
  };
}
