/**
 * The firewall blocklist of a workspace: the addresses and blocks whose published evidence alone puts them at or
 * above a threshold, under the workspace's own rules (docs/risk-model.md#blocklist, docs/api.md#blocklist).
 *
 * RULE
 *   IP      an IP whose own published evidence (the `ip` entity in the global layer or the workspace's own) reaches
 *           the threshold is a candidate; it is listed with the overall score `score` answers the workspace for it
 *           now (its networks, its own verdict and its rule included) when that score reaches the threshold.
 *   Block   a `subnet` entity, listed when round(w_subnet · s) ≥ threshold: the score its evidence alone gives
 *           every address in it. A block is dropped when an allow rule (IP or CIDR) overlaps it, and otherwise
 *           takes the AS or country rule of its network (allow: dropped; adjust: its points; deny: critical).
 *   Rules   every IP and CIDR a deny rule names is listed; deny rules on an AS or a country are not expanded into
 *           address ranges, and a denied CIDR holding an allowed address is left out: both are counted in
 *           `rulesNotListed`.
 *   Order   score descending, then IPs before blocks, then the entry's text; the first `limit` are kept.
 * WORK  one walk of the publication's ip and subnet tables, then one score per candidate IP (no query): bounded by
 *       the publication's size, and the clock is looked at every CLOCK_EVERY candidates (turnOver).
 */
import type { NetworkIndex } from '../network/types.ts';
import type { PublicationCache } from '../publishing/index.ts';
import { GLOBAL_LAYER } from '../publishing/index.ts';
import type { OverrideCache } from '../overrides/rule-cache.ts';
import type { HeldRule } from '../overrides/rule-index.ts';
import { applyOverride, overriddenScore } from '../overrides/apply.ts';
import type { IpMemoryCache } from '../memory/ip-memory.ts';
import { callerScore } from './caller-score.ts';
import { riskLevel, type RiskLevel } from '../scoring/levels.ts';
import { DIMENSION_WEIGHTS } from '../scoring/score.ts';
import { RangeSet, rangeOf } from './address-ranges.ts';
import { turnOver } from '../../platform/event-loop-turn.ts';

export type BlocklistEntry = {
  entry: string;
  kind: 'ip' | 'block';
  score: number;
  level: RiskLevel;
  source: 'evidence' | 'rule';
};

export type BlocklistList = {
  threshold: number;
  thresholdLevel: RiskLevel;
  entries: BlocklistEntry[];
  /** Entries that qualified, before `limit`. */
  matched: number;
  truncated: boolean;
  rulesNotListed: number;
  publication: { version: number; publishedAt: Date | null };
};

export type BlocklistDeps = {
  network: NetworkIndex;
  publications: PublicationCache;
  overrides: OverrideCache;
  ipMemory: IpMemoryCache;
};

/** Candidates ruled between looks at the clock (turnOver): a long list never holds other requests back for long. */
const CLOCK_EVERY = 256;

type Candidate = { entry: string; kind: 'ip' | 'block'; score: number; source: 'evidence' | 'rule' };

export async function buildBlocklist(
  workspaceId: number,
  input: { threshold: number; limit: number },
  deps: BlocklistDeps,
  nowMs: number,
): Promise<BlocklistList> {
  const snapshot = deps.publications.current();
  const { threshold, limit } = input;
  const candidates = new Map<string, Candidate>();
  const keep = (entry: string, kind: Candidate['kind'], score: number) => {
    const held = candidates.get(entry);
    if (!held || held.score < score) candidates.set(entry, { entry, kind, score, source: 'evidence' });
  };
  const w = DIMENSION_WEIGHTS.subnet;
  for (const layer of [GLOBAL_LAYER, workspaceId]) {
    snapshot.scan(layer, 'ip', threshold, (key, score) => keep(key, 'ip', score));
    // round(w · s) ≥ threshold needs s ≥ (threshold − 0.5) / w
    snapshot.scan(layer, 'subnet', Math.ceil((threshold - 0.5) / w), (key, score) => {
      const blockScore = Math.round(w * score);
      if (blockScore >= threshold) keep(key, 'block', blockScore);
    });
  }

  const rules = deps.overrides.inForce(workspaceId, nowMs);
  const allowed = new RangeSet(
    rules.filter((r) => r.action === 'allow' && (r.targetKind === 'ip' || r.targetKind === 'cidr')).flatMap(range),
  );
  const byOwner = new Map(
    rules.filter((r) => r.targetKind === 'asn' || r.targetKind === 'country').map((r) => [r.target, r]),
  );
  /** The IP as `score` answers the workspace for it now: its networks, its own verdict, its rule. */
  const answered = (ip: string): Candidate => {
    const h = deps.network.resolve(ip);
    const evidence = callerScore(h, snapshot, workspaceId, deps.ipMemory, nowMs);
    const { score, override } = applyOverride(evidence, deps.overrides.find(workspaceId, h, nowMs));
    return { entry: ip, kind: 'ip', score: score.overallScore, source: override ? 'rule' : 'evidence' };
  };
  const listed: Candidate[] = [];
  let n = 0;
  for (const c of candidates.values()) {
    if (++n % CLOCK_EVERY === 0) await turnOver();
    if (c.kind === 'ip') {
      const scored = answered(c.entry);
      if (scored.score >= threshold) listed.push(scored);
      continue;
    }
    const rule = rules.length > 0 ? blockRule(c, allowed, byOwner, deps) : null;
    if (rule === 'dropped') continue;
    const score = rule ? overriddenScore(c.score, rule) : c.score;
    if (score >= threshold) listed.push({ ...c, score, source: rule ? 'rule' : 'evidence' });
  }
  let rulesNotListed = 0;
  for (const r of rules) {
    if (r.action !== 'deny') continue;
    if (r.targetKind === 'asn' || r.targetKind === 'country') {
      rulesNotListed++;
      continue;
    }
    const covered = range(r);
    if (r.targetKind === 'cidr' && covered.some((x) => allowed.overlaps(x))) {
      rulesNotListed++;
      continue;
    }
    if (covered.length === 0 || candidates.has(r.target)) continue;
    listed.push(
      r.targetKind === 'ip'
        ? answered(r.target)
        : { entry: r.target, kind: 'block', score: overriddenScore(0, r), source: 'rule' },
    );
  }

  listed.sort(byRisk);
  return {
    threshold,
    thresholdLevel: riskLevel(threshold),
    entries: listed.slice(0, limit).map((c) => ({ ...c, level: riskLevel(c.score) })),
    matched: listed.length,
    truncated: listed.length > limit,
    rulesNotListed,
    publication: { version: snapshot.version, publishedAt: snapshot.publishedAt },
  };
}

function range(r: HeldRule) {
  const x = rangeOf(r.target);
  return x ? [x] : [];
}

/** A block's rule: dropped under an allow rule that overlaps it, else the AS or country rule of its network. */
function blockRule(
  c: Candidate,
  allowed: RangeSet,
  byOwner: Map<string, HeldRule>,
  deps: BlocklistDeps,
): HeldRule | 'dropped' | null {
  const r = rangeOf(c.entry);
  if (!r || allowed.overlaps(r)) return 'dropped';
  if (byOwner.size === 0) return null;
  const h = deps.network.resolve(c.entry.slice(0, c.entry.indexOf('/')));
  const key = (code: string) => h.dimensions.find((d) => d.code === code)?.entity?.key;
  const asn = key('asn');
  const country = key('country');
  return (
    (asn !== undefined ? byOwner.get(asn) : undefined) ??
    (country !== undefined ? byOwner.get(country) : undefined) ??
    null
  );
}

function byRisk(a: Candidate, b: Candidate): number {
  if (a.score !== b.score) return b.score - a.score;
  if (a.kind !== b.kind) return a.kind === 'ip' ? -1 : 1;
  return a.entry < b.entry ? -1 : a.entry > b.entry ? 1 : 0;
}
