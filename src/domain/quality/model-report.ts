/**
 * The model report on a deployment's own history (`risk-api model report`, the control plane's Model page, the
 * risk_model_* gauges): for sample instants in the period, what level the model gave IPs and whether they were
 * reported bad within the following window.
 *
 * RULES
 *   - Sample instants: every 00:00 UTC from `now − since` to `now − window` (a later instant's window has not ended).
 *   - Population: every IP with evidence in the scope (below). Each IP is sampled ONCE, at the instant a hash of the
 *     IP picks whatever its history: an instant chosen from its reports (say, just before the first) would make the
 *     sample all later-reported IPs.
 *   - Scope: a workspace sees the global layer (community reports, feeds) and its own layer (its reports of any
 *     visibility, its ratings); the deployment scope sees the global layer only. Private reports therefore count,
 *     as evidence and as outcomes, only for their own workspace.
 *   - Outcome: "reported bad" = a harmful report or a bad rating in the scope, in (t, t + window].
 *   - Level at t: the model as it stood at t (as-of.ts), the same functions the publisher and score use.
 *   - Early warning: of the IPs first reported bad in (t, t + window], the share at medium or higher at t.
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { NetworkIndex } from '../network/index.ts';
import { AppError } from '../../errors.ts';
import type { RiskLevel } from '../scoring/levels.ts';
import { rocAuc } from './auc.ts';
import { earlyWarning, type EarlyWarning } from './early-warning.ts';
import { levelTable } from './levels.ts';
import { readScope, scoresAt } from './as-of.ts';
import { nextTurn } from './layer-history.ts';

export const MODEL_REPORT_DEFAULTS = Object.freeze({ sinceDays: 30, windowDays: 7 });

/** `30d` or `30` → 30; anything else is refused with the option's name. */
export function parseDays(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const m = /^(\d{1,4})d?$/.exec(text.trim());
  if (!m) throw new AppError('invalid_request', `${name} must be a number of days, like 30d`);
  return Number(m[1]);
}
const DAY = 86_400_000;

export type ModelReportOptions = {
  /** Days of history to sample (1..365). */
  sinceDays?: number;
  /** Days after a sample instant in which a report counts as its outcome (1..90). */
  windowDays?: number;
  /** A workspace's own report; absent: the deployment's (global layer only). */
  workspaceId?: number;
  now?: Date;
};

export type ModelReport = {
  workspace: string | null;
  sinceDays: number;
  windowDays: number;
  /** The sample instants, oldest first. */
  instants: string[];
  /** IPs sampled (each once). */
  ips: number;
  levels: Array<{ level: RiskLevel; scored: number; reportedBad: number; precision: number | null }>;
  earlyWarning: EarlyWarning;
  /** ROC AUC of the score against "reported bad within the window" (null when either side is empty). */
  auc: number | null;
};

function checkDays(name: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new AppError('invalid_request', `${name} must be a whole number of days from 1 to ${max}`);
  return value;
}

/** FNV-1a: a stable, well-spread choice of instant per IP (the same IP gets the same instant in every run). */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export async function modelReport(
  prisma: PrismaClient,
  network: NetworkIndex,
  opts: ModelReportOptions = {},
): Promise<ModelReport> {
  const sinceDays = checkDays('since', opts.sinceDays ?? MODEL_REPORT_DEFAULTS.sinceDays, 365);
  const windowDays = checkDays('window', opts.windowDays ?? MODEL_REPORT_DEFAULTS.windowDays, 90);
  const now = (opts.now ?? new Date()).getTime();
  let workspace: string | null = null;
  if (opts.workspaceId !== undefined) {
    const row = await prisma.workspace.findUnique({ where: { id: opts.workspaceId }, select: { name: true } });
    if (!row) throw new AppError('not_found', 'no such workspace');
    workspace = row.name;
  }

  const instants: number[] = [];
  for (let t = Math.ceil((now - sinceDays * DAY) / DAY) * DAY; t <= now - windowDays * DAY; t += DAY) instants.push(t);

  const scope = await readScope(prisma, network, opts.workspaceId);
  const [global, own] = scope;
  const population = new Set<string>();
  let step = 0;
  for (const layer of scope)
    for (const ip of layer?.ips ?? []) {
      population.add(ip);
      if ((++step & 4095) === 0) await nextTurn();
    }
  const byInstant = new Map<number, string[]>();
  if (instants.length)
    // No sort: the instant an IP gets is its hash's, whatever the order; a sort of every IP would hold one turn.
    for (const ip of population) {
      const t = instants[hash(ip) % instants.length]!;
      const list = byInstant.get(t);
      if (list) list.push(ip);
      else byInstant.set(t, [ip]);
      if ((++step & 4095) === 0) await nextTurn();
    }
  population.clear();

  const samples: Array<{ score: number; bad: boolean }> = [];
  const warnings: number[] = [];
  for (const t of instants) {
    const ips = byInstant.get(t) ?? [];
    byInstant.delete(t);
    const scores = await scoresAt(ips, t, network, global!, own ?? null);
    ips.forEach((ip, i) => {
      const times = scope.flatMap((layer) => layer?.badTimes(ip) ?? []);
      const inWindow = (x: number) => x > t && x <= t + windowDays * DAY;
      samples.push({ score: scores[i]!, bad: times.some(inWindow) });
      if (times.length && inWindow(Math.min(...times))) warnings.push(scores[i]!);
    });
  }
  return {
    workspace,
    sinceDays,
    windowDays,
    instants: instants.map((t) => new Date(t).toISOString()),
    ips: samples.length,
    levels: levelTable(samples).map((r) => ({
      level: r.level,
      scored: r.count,
      reportedBad: r.bad,
      precision: r.precision,
    })),
    earlyWarning: earlyWarning(warnings),
    auc: rocAuc(samples),
  };
}
