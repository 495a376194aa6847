/**
 * Confidence (0-100) of an overall score: how much independent, recent evidence backs it, apart from how risky it
 * says the IP is (docs/risk-model.md#confidence).
 *
 *   support  = Σ_d share_d · sources_d · recency_d     share_d = w_d·s_d / Σ w·s (0 when the score is 0)
 *              sources_d = distinct workspaces + feed listings in the entity's published summary
 *              recency_d = 2^(−age / 30 days), age = now − the summary's newest evidence (1 when undated)
 *   own      = OWN_VERDICT_SOURCES · 2^(−age / 30 days) when the caller has an own verdict (its newest item), else 0
 *   confidence = round(100 · (1 − e^(−(support + own) / 2)))
 *
 * Reference points (fresh): one source behind the score → 39, two → 63, four → 86; the caller's own verdict alone → 63.
 */
import type { OwnVerdict } from './own-verdict.ts';
import { HALF_LIFE_MS } from './weights.ts';

/** The caller's own verdict counts as this many independent sources: it is the evidence the caller trusts most. */
export const OWN_VERDICT_SOURCES = 2;

/** What backs one dimension's score: its published summary's distinct sources and newest evidence (ms). */
export type Backing = { sources: number; lastSeen: number | null };

function recency(at: number | null, now: number): number {
  return at === null ? 1 : 2 ** (-Math.max(0, now - at) / HALF_LIFE_MS);
}

export function confidenceOf(
  dims: ReadonlyArray<{ pressure: number; backing: Backing | null }>,
  own: OwnVerdict | null,
  now: number,
): number {
  const total = dims.reduce((acc, d) => acc + d.pressure, 0);
  let support = 0;
  if (total > 0) {
    for (const d of dims) {
      if (d.backing && d.pressure > 0)
        support += (d.pressure / total) * d.backing.sources * recency(d.backing.lastSeen, now);
    }
  }
  const ownSupport = own ? OWN_VERDICT_SOURCES * recency(own.at.getTime(), now) : 0;
  const c = Math.round(100 * (1 - Math.exp(-(support + ownSupport) / 2)));
  return Number.isFinite(c) ? Math.min(100, Math.max(0, c)) : 0;
}
