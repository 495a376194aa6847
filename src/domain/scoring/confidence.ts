/**
 * Confidence (0-100) of an overall score: how much independent, recent evidence backs it, apart from how risky it
 * says the IP is (docs/risk-model.md#confidence). Every input is in the answer itself, so a client can redo it.
 *
 *   support  = Σ_d share_d · sources_d · recency_d     share_d = w_d·s_d / Σ w·s (0 when the score is 0)
 *              sources_d = the dimension's reported.sources (distinct workspaces and feeds the caller may see);
 *                          on `ip`, less the caller's own workspace when it has an own verdict (counted below)
 *              recency_d = 2^(−age / 30 days), age = now − reported.last_reported_at (1 when undated)
 *   own      = OWN_VERDICT_SOURCES · 2^(−age / 30 days) when the caller has an own verdict (its newest item), else 0
 *   confidence = round(100 · (1 − e^(−(support + own) / 2)))
 *
 * Reference points (fresh): one source behind the score → 39, two → 63, three → 78, four → 86; the caller's own
 * verdict alone → 63, with one other source on the IP → 78.
 */
import type { DimensionCode } from '../network/types.ts';
import type { OwnVerdict } from './own-verdict.ts';
import type { DimensionReported } from './reported.ts';
import { HALF_LIFE_MS } from './weights.ts';

/** The caller's own verdict counts as this many independent sources: it is the evidence the caller trusts most. */
export const OWN_VERDICT_SOURCES = 2;

function recency(at: number | null, now: number): number {
  return at === null ? 1 : 2 ** (-Math.max(0, now - at) / HALF_LIFE_MS);
}

/** `dims[i]`'s part of the score is `pressure[i]` (w_d · s_d / 100). */
export function confidenceOf(
  dims: ReadonlyArray<{ code: DimensionCode; reported: DimensionReported }>,
  pressure: readonly number[],
  own: OwnVerdict | null,
  now: number,
): number {
  let total = 0;
  for (const p of pressure) total += p;
  let support = 0;
  if (total > 0) {
    for (let i = 0; i < dims.length; i++) {
      const p = pressure[i]!;
      if (!(p > 0)) continue;
      const r = dims[i]!.reported;
      // An own verdict implies the caller wrote about the IP, so `sources` counts it: it counts once, as `own`.
      const sources = own !== null && dims[i]!.code === 'ip' ? Math.max(0, r.sources - 1) : r.sources;
      support += (p / total) * sources * recency(r.lastReportedAt?.getTime() ?? null, now);
    }
  }
  const ownSupport = own ? OWN_VERDICT_SOURCES * recency(own.at.getTime(), now) : 0;
  const c = Math.round(100 * (1 - Math.exp(-(support + ownSupport) / 2)));
  return Number.isFinite(c) ? Math.min(100, Math.max(0, c)) : 0;
}
