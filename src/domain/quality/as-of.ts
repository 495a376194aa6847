/**
 * The model as it stood at a past instant t, for the IPs sampled at t: the score of exactly the entities those IPs
 * resolve to, from the evidence that existed at t (reports and ratings written by t, feed listings imported by t),
 * computed as the publisher's summaries compute it (layer-history.ts, to the last bit), then scored by scoreIp.
 *
 * Bounded work and memory: the scope's evidence is read in pages (history-pages.ts) into compact layers; only the
 * global layer and the asking workspace's own layer are read; each entity's score is computed once per instant.
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { NetworkIndex } from '../network/index.ts';
import type { DimensionCode } from '../network/types.ts';
import { GLOBAL_LAYER } from '../publishing/gather.ts';
import type { EntitySummary } from '../scoring/evidence.ts';
import { scoringDimensions } from '../scoring/hierarchy.ts';
import { riskLevel } from '../scoring/levels.ts';
import { scoreIp } from '../scoring/score.ts';
import { readHistory } from './history-pages.ts';
import { LayerHistoryBuilder, nextTurn, slotKey, type LayerHistory } from './layer-history.ts';

/** The global layer, and the workspace's own layer when a workspace is given (else null). */
export async function readScope(
  prisma: PrismaClient,
  network: NetworkIndex,
  workspaceId: number | undefined,
): Promise<[LayerHistory, LayerHistory | null]> {
  const builders = new Map<number, LayerHistoryBuilder>([[GLOBAL_LAYER, new LayerHistoryBuilder()]]);
  if (workspaceId !== undefined) builders.set(workspaceId, new LayerHistoryBuilder());
  await readHistory(prisma, network, workspaceId, (layer, target, item) => {
    const b = builders.get(layer);
    // Where an item lands, as gather.ts places it.
    if (!b) return;
    if (target.kind === 'ip') b.addIp(target.ip, item);
    else if (target.kind === 'subnets')
      for (const s of target.subnets) b.addDirect('subnet', s.key, s.scale === 1 ? item : { ...item, scale: s.scale });
    else if (target.kind === 'entity') b.addDirect(target.code, target.key, item);
  });
  const resolve = (ip: string) => network.resolve(ip);
  const global = await builders.get(GLOBAL_LAYER)!.seal(resolve);
  const own = workspaceId !== undefined ? await builders.get(workspaceId)!.seal(resolve) : null;
  return [global, own];
}

/** What scoreIp reads of a summary for overall_score: its score (no evidence: no summary). */
function summaryOf(score: number): EntitySummary | undefined {
  if (score === 0) return undefined;
  const counts = { reports: 0, badRatings: 0, neutralRatings: 0, goodRatings: 0, feedListings: 0 };
  return { score, level: riskLevel(score), counts, reporters: 0, firstSeen: null, lastSeen: null };
}

/** overall_score of each IP at `t`: the global layer, plus the workspace's own layer when given. */
export async function scoresAt(
  ips: readonly string[],
  t: number,
  network: NetworkIndex,
  global: LayerHistory,
  own: LayerHistory | null,
): Promise<number[]> {
  const out: number[] = [];
  // IPs of one instant share their larger entities (a country, an AS): each is scored once per instant.
  const published = new Map<string, EntitySummary | undefined>();
  const contextual = new Map<string, EntitySummary | undefined>();
  const lookup = (memo: Map<string, EntitySummary | undefined>) => (code: DimensionCode, key: string) =>
    memo.get(slotKey(code, key));
  for (const ip of ips) {
    const h = network.resolve(ip);
    for (const dim of scoringDimensions(h)) {
      if (!dim.entity) continue;
      const key = slotKey(dim.code, dim.entity.key);
      if (!published.has(key)) published.set(key, summaryOf(await global.scoreAt(dim.code, dim.entity.key, t)));
      if (own && !contextual.has(key)) contextual.set(key, summaryOf(await own.scoreAt(dim.code, dim.entity.key, t)));
    }
    const score = scoreIp(h, lookup(published), own ? lookup(contextual) : undefined, { now: t });
    out.push(score.overallScore);
    await nextTurn();
  }
  return out;
}
