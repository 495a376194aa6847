/**
 * What the workspaces write about the population: each sees its share of the abuse aimed at it, notices some of it
 * and reports it late, sometimes with a wrong outcome code or as a bad rating; benign visitors are now and then
 * reported by mistake (one careless workspace often) or rated good; one hostile workspace reports a benign /24 and a
 * benign AS wholesale. Events are generated past the end of the run too (up to the horizon): they are never written,
 * but they say which IPs were first reported after a sample time.
 */
import { OUTCOME_CODES } from '../../src/domain/scoring/weights.ts';
import type { Actor, Population } from './actors.ts';
import { addressIn, ipText } from './networks.ts';
import type { WorldParams } from './params.ts';
import type { Random } from './random.ts';

export type WorldEvent = {
  at: number;
  /** Index into the world's workspaces. */
  workspace: number;
  ip: string;
  /** A report's outcome code, or a rating's value. */
  what: { report: string; severity: string; community: boolean } | { rating: 1 | -1 };
  /** True when the event says "bad" of an IP that is not abusive at that time. */
  mistaken: boolean;
};

export type WorkspaceRole = 'honest' | 'careless' | 'hostile' | 'observer';
export type WorkspacePlan = { name: string; role: WorkspaceRole; share: number };

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const CODES_BY_KIND: Record<string, readonly string[]> = {
  'hosting-abuser': ['credential_stuffing', 'scraping', 'bot_activity', 'spam'],
  compromised: ['account_takeover', 'fraud_confirmed', 'chargeback', 'credential_stuffing'],
  'shared-abuser': ['fraud_watch', 'spam', 'account_takeover'],
};
const HARMFUL = OUTCOME_CODES.filter((c) => c !== 'legitimate' && c !== 'false_positive');
const SEVERITY = ['low', 'medium', 'high', 'critical'] as const;
const SEVERITY_WEIGHTS = [0.2, 0.45, 0.25, 0.1];
/** Shared addresses carry many users: this many times the visits (and so the good ratings and mistakes) of one. */
const SHARED_USERS = 20;

/** The honest workspaces by size (the last is the careless one), then the hostile one and an observer with no data. */
export function workspacePlans(p: WorldParams): WorkspacePlan[] {
  const total = p.workspaceSizes.reduce((a, b) => a + b, 0);
  const plans: WorkspacePlan[] = p.workspaceSizes.map((size, i) => ({
    name: `eval-${String.fromCharCode(97 + i)}`,
    role: i === p.workspaceSizes.length - 1 ? 'careless' : 'honest',
    share: size / total,
  }));
  plans.push(
    { name: 'eval-hostile', role: 'hostile', share: 0 },
    { name: 'eval-observer', role: 'observer', share: 0 },
  );
  return plans;
}

/** A harmful report or a bad rating. */
export function saysBad(e: WorldEvent): boolean {
  return 'rating' in e.what
    ? e.what.rating === -1
    : e.what.report !== 'legitimate' && e.what.report !== 'false_positive';
}

const abusiveAt = (a: Actor, t: number) => a.abuse !== null && a.abuse.start <= t && t < a.abuse.end;

export function generateEvents(
  p: WorldParams,
  pop: Population,
  plans: readonly WorkspacePlan[],
  random: Random,
  endMs: number,
): WorldEvent[] {
  const events: WorldEvent[] = [];
  const shares = plans.map((w) => w.share);
  const severity = () => SEVERITY[random.weighted(SEVERITY_WEIGHTS)]!;
  const report = (code: string, sev: string) => ({
    report: code,
    severity: sev,
    community: !random.chance(p.privateRate),
  });
  const lastReport = new Map<string, number>(); // workspace\0ip → day of its last report: one report per day at most

  for (const actor of pop.actors) {
    if (actor.abuse) {
      const from = Math.max(0, actor.abuse.start);
      const to = Math.min(endMs, actor.abuse.end);
      const rate = p.attacksPerHour * (actor.kind === 'shared-abuser' ? 0.5 : 1);
      const attacks = to > from ? random.poisson((rate * (to - from)) / HOUR) : 0;
      const times = Array.from({ length: attacks }, () => from + random.next() * (to - from)).sort((a, b) => a - b);
      for (const t of times) {
        const workspace = random.weighted(shares);
        if (!random.chance(p.detectRate)) continue;
        const at = t + random.logNormal(p.medianReportDelayHours) * HOUR;
        const key = `${workspace}\u0000${actor.ip}`;
        const day = Math.floor(at / DAY);
        if (lastReport.get(key) === day) continue;
        lastReport.set(key, day);
        const codes = CODES_BY_KIND[actor.kind]!;
        const code = random.chance(p.wrongCodeRate) ? random.pick(OUTCOME_CODES) : random.pick(codes);
        const what = random.chance(p.ratingInsteadRate) ? { rating: -1 as const } : report(code, severity());
        events.push({ at, workspace, ip: actor.ip, what, mistaken: false });
      }
    }
    // Benign visits: mistaken reports and good ratings, outside any abuse.
    const visits = (p.benignVisitsPerHour * endMs) / HOUR;
    const users = actor.kind === 'shared-abuser' ? SHARED_USERS : 1;
    plans.forEach((w, workspace) => {
      if (w.role !== 'honest' && w.role !== 'careless') return;
      const fp = p.falsePositiveRate * (w.role === 'careless' ? p.carelessFactor : 1);
      const mistakes = random.poisson(visits * users * w.share * fp);
      for (let k = 0; k < mistakes; k++) {
        const at = random.next() * endMs;
        if (abusiveAt(actor, at)) continue;
        events.push({ at, workspace, ip: actor.ip, what: report(random.pick(HARMFUL), severity()), mistaken: true });
      }
      const good = random.poisson(visits * users * w.share * p.goodRatingRate);
      for (let k = 0; k < good; k++) {
        const at = random.next() * endMs;
        if (!abusiveAt(actor, at)) events.push({ at, workspace, ip: actor.ip, what: { rating: 1 }, mistaken: false });
      }
    });
  }

  // The hostile workspace: within one hour, fraud_confirmed/critical community reports across its two benign targets.
  const hostile = plans.findIndex((w) => w.role === 'hostile');
  const start = p.hostileDay * DAY;
  const hostileReport = (ip: string) =>
    events.push({
      at: start + random.next() * HOUR,
      workspace: hostile,
      ip,
      what: { report: 'fraud_confirmed', severity: 'critical', community: true },
      mistaken: true,
    });
  const inBlock = new Set<number>();
  while (inBlock.size < Math.min(254, p.hostileSubnetIps)) inBlock.add(pop.hostileBlock + 1 + random.int(254));
  for (const n of inBlock) hostileReport(ipText(n));
  const inAs = new Set<number>();
  for (let tries = 0; inAs.size < p.hostileAsnIps && tries < p.hostileAsnIps * 10; tries++)
    inAs.add(addressIn(pop.hostileAsn, random));
  for (const n of inAs) hostileReport(ipText(n));

  return events.sort((a, b) => a.at - b.at);
}
