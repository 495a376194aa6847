/**
 * The score's layers in one sentence: what the published evidence alone gives and what the caller's own evidence
 * changed (docs/risk-model.md#layers). Overrides apply after this and explain themselves (overrides/apply.ts).
 */
import { riskLevel, type RiskLevel } from './levels.ts';
import type { OwnVerdict } from './own-verdict.ts';

/** What the published evidence alone gives and what the caller's own evidence changed (explainLayers words it). */
export type ScoreLayers = {
  /** The overall score from the global layer alone: what any workspace without evidence of its own would get. */
  publishedScore: number;
  publishedLevel: RiskLevel;
  /** Overall score before any override rule minus publishedScore: what the workspace's own evidence changed. */
  ownChange: number;
  /** The side of the workspace's live own verdict on the IP (own-verdict.ts); null when it has none. */
  ownVerdict: 'bad' | 'benign' | null;
  /** The newest own item on that side. */
  ownVerdictAt: Date | null;
  explanation: string;
};

export function explainLayers(a: { publishedScore: number; overall: number; own: OwnVerdict | null }): ScoreLayers {
  const { publishedScore, overall, own } = a;
  const publishedLevel = riskLevel(publishedScore);
  const from = `${publishedScore} (${publishedLevel})`;
  const to = `${overall} (${riskLevel(overall)})`;
  const moved =
    overall > publishedScore
      ? `raises it to ${to}`
      : overall < publishedScore
        ? `lowers it to ${to}`
        : 'leaves it unchanged';
  let explanation: string;
  if (own?.side === 'bad') {
    const floor = own.floor
      ? ', at least high while its confirmed fraud of high or critical severity is under 30 days old'
      : '';
    explanation = `Published evidence alone gives ${from}; your workspace's own bad verdict (newest ${own.at.toISOString()}) ${moved}${floor}.`;
  } else if (own?.side === 'benign') {
    explanation = `Published evidence alone gives ${from}; your workspace's own benign verdict (newest ${own.at.toISOString()}, newer than any bad evidence of its own) ${moved}.`;
  } else if (overall !== publishedScore) {
    explanation = `Published evidence alone gives ${from}; your workspace's own evidence on the IP's networks, as of the last publication, ${moved}.`;
  } else {
    explanation = `Published evidence alone gives ${from}; your workspace has no evidence of its own that changes it.`;
  }
  return {
    publishedScore,
    publishedLevel,
    ownChange: overall - publishedScore,
    ownVerdict: own?.side ?? null,
    ownVerdictAt: own?.at ?? null,
    explanation,
  };
}
