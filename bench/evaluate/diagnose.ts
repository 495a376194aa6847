/**
 * Why a world misses a target, decomposed from the replay's samples (replay.ts):
 *   - the samples at high or critical that were not abusive in the day after: by kind of IP, by the dimension that
 *     drove the score, and by how old the newest bad evidence on the IP itself was;
 *   - the early-warning cases (first reported bad in the week after t): by kind, whether that first report was a
 *     mistake, and which were warned; what the missed ones had at t.
 */
import { riskLevel } from '../../src/domain/scoring/levels.ts';
import type { RunResult } from './drive.ts';
import type { SampleDetail } from './replay.ts';
import type { World } from './world.ts';

type Tally = Record<string, number>;
export type Diagnosis = {
  highCritical: { total: number; abusive: number; byKind: Tally; falseByKind: Tally; falseByDriver: Tally };
  /** False highs by the age of the newest bad evidence on the IP itself (no evidence: 'none'). */
  falseByEvidenceAge: Tally;
  /** False highs whose IP had been abusive before t (evidence of a past that has ended). */
  falseFormerlyAbusive: number;
  early: {
    cases: number;
    warned: number;
    byKind: Tally;
    warnedByKind: Tally;
    /** Cases whose first bad word was a mistake (a benign IP reported by error): no model can warn of those. */
    mistaken: number;
    /** Missed abusive cases: the strongest dimension they had at t. */
    missedStrongest: Tally;
    /** Missed abusive cases by their score band at t. */
    missedLevels: Tally;
    /** Missed cases already listed by a feed at t. */
    missedFeedListed: number;
  };
};

const add = (t: Tally, key: string, n = 1) => {
  t[key] = (t[key] ?? 0) + n;
};

function ageBand(hours: number | null): string {
  if (hours === null) return 'none on the IP';
  if (hours < 24) return '< 1 day';
  if (hours < 72) return '1-3 days';
  if (hours < 7 * 24) return '3-7 days';
  return '>= 7 days';
}

export function diagnose(world: World, run: RunResult, details: readonly SampleDetail[]): Diagnosis {
  const d: Diagnosis = {
    highCritical: { total: 0, abusive: 0, byKind: {}, falseByKind: {}, falseByDriver: {} },
    falseByEvidenceAge: {},
    falseFormerlyAbusive: 0,
    early: {
      cases: 0,
      warned: 0,
      byKind: {},
      warnedByKind: {},
      mistaken: 0,
      missedStrongest: {},
      missedLevels: {},
      missedFeedListed: 0,
    },
  };
  run.observations.forEach((o, i) => {
    const detail = details[i]!;
    const actor = world.byIp.get(o.ip)!;
    const level = riskLevel(o.overall);
    const t = o.hour * 3_600_000;
    if (level === 'high' || level === 'critical') {
      d.highCritical.total++;
      add(d.highCritical.byKind, actor.kind);
      if (o.truth) d.highCritical.abusive++;
      else {
        add(d.highCritical.falseByKind, actor.kind);
        add(d.highCritical.falseByDriver, o.driver ?? 'none');
        add(d.falseByEvidenceAge, ageBand(detail.lastBadAgeHours));
        if (actor.abuse !== null && actor.abuse.start < t) d.falseFormerlyAbusive++;
      }
    }
    if (o.firstReportedLater) {
      const warned = level !== 'minimal' && level !== 'low';
      d.early.cases++;
      add(d.early.byKind, actor.kind);
      if (warned) {
        d.early.warned++;
        add(d.early.warnedByKind, actor.kind);
      }
      if (detail.firstLaterMistaken) d.early.mistaken++;
      else if (!warned) {
        const strongest = detail.dimensions.reduce((a, b) => (b.score > a.score ? b : a), detail.dimensions[0]!);
        add(d.early.missedStrongest, strongest.score === 0 ? 'nothing' : strongest.code);
        add(d.early.missedLevels, level);
        if (detail.feedListed) d.early.missedFeedListed++;
      }
    }
  });
  return d;
}

const tally = (t: Tally) =>
  Object.entries(t)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ') || '-';

export function formatDiagnosis(d: Diagnosis): string {
  const h = d.highCritical;
  const e = d.early;
  return [
    `  high+critical: ${h.total} samples, ${h.abusive} abusive; all by kind: ${tally(h.byKind)}`,
    `  false highs by kind: ${tally(h.falseByKind)}; by driver: ${tally(h.falseByDriver)}`,
    `  false highs by newest bad evidence on the IP: ${tally(d.falseByEvidenceAge)}; formerly abusive ${d.falseFormerlyAbusive}`,
    `  early warning: ${e.warned}/${e.cases}; cases by kind: ${tally(e.byKind)}; warned by kind: ${tally(e.warnedByKind)}`,
    `  first word a mistake: ${e.mistaken}; missed abusive cases' strongest dimension: ${tally(e.missedStrongest)}; ` +
      `their level: ${tally(e.missedLevels)}; listed by a feed at t: ${e.missedFeedListed}`,
  ].join('\n');
}
