/**
 * The model as it stood at a past instant t, for a few IPs: summaries of exactly the entities those IPs resolve to,
 * from the evidence that existed at t (reports and ratings written by t, feed listings imported by t), summarised
 * by the same functions the publisher uses (evidence.ts, rollup.ts), then scored by scoreIp.
 *
 * Bounded work: an index from each entity to the IPs holding evidence in it is built once; each entity is then
 * summarised from its own members only, and long loops hand the event loop back every turn (event-loop-turn.ts), so
 * a report over a large history never holds the service's requests.
 */
import type { DimensionCode, Hierarchy } from '../network/types.ts';
import type { NetworkIndex } from '../network/index.ts';
import type { Layer } from '../publishing/gather.ts';
import { summarizeEvidence, type EntitySummary, type EvidenceItem } from '../scoring/evidence.ts';
import { scoringDimensions } from '../scoring/hierarchy.ts';
import { effectiveSize, rollupWeight } from '../scoring/rollup.ts';
import { scoreIp } from '../scoring/score.ts';
import { turnOver } from '../../platform/event-loop-turn.ts';

type Member = { ip: string; version: 4 | 6; weight: number };

const slotKey = (code: DimensionCode, key: string) => `${code}\u0000${key}`;

async function nextTurn(): Promise<void> {
  const wait = turnOver();
  if (wait) await wait;
}

/** One layer (global, or a workspace's own) with its entity → member index, ready to be read at any instant. */
export class LayerAsOf {
  private readonly members = new Map<string, Member[]>();

  private constructor(private readonly layer: Layer) {}

  static async build(layer: Layer, resolve: (ip: string) => Hierarchy): Promise<LayerAsOf> {
    const out = new LayerAsOf(layer);
    for (const ip of layer.ips.keys()) {
      const h = resolve(ip);
      for (const dim of scoringDimensions(h)) {
        if (!dim.entity) continue;
        const weight = dim.code === 'ip' ? 1 : rollupWeight(effectiveSize(dim.entity.size, h.version));
        const key = slotKey(dim.code, dim.entity.key);
        const list = out.members.get(key);
        const member = { ip, version: h.version, weight };
        if (list) list.push(member);
        else out.members.set(key, [member]);
      }
      await nextTurn();
    }
    return out;
  }

  /** The entity's summary from the evidence that existed at `t` (undefined when it had none). */
  async summaryAt(code: DimensionCode, key: string, t: Date): Promise<EntitySummary | undefined> {
    const at = t.getTime();
    const known = (item: EvidenceItem) => item.at.getTime() <= at;
    const items: EvidenceItem[] = [];
    for (const item of this.layer.direct.get(slotKey(code, key))?.items ?? []) if (known(item)) items.push(item);
    let read = 0;
    for (const m of this.members.get(slotKey(code, key)) ?? []) {
      for (const item of this.layer.ips.get(m.ip) ?? []) {
        if (!known(item)) continue;
        items.push(code === 'ip' ? item : { ...item, scale: (item.scale ?? 1) * m.weight, origin: m.ip });
      }
      if (++read % 1024 === 0) await nextTurn();
    }
    return items.length ? summarizeEvidence(items, t, code) : undefined;
  }
}

/** overall_score of each IP at `t`: the global layer, plus the workspace's own layer when given. */
export async function scoresAt(
  ips: readonly string[],
  t: Date,
  network: NetworkIndex,
  global: LayerAsOf,
  own: LayerAsOf | null,
): Promise<number[]> {
  const out: number[] = [];
  // IPs of one instant share their larger entities (a country, an AS): each is summarised once per instant.
  const published = new Map<string, EntitySummary | undefined>();
  const contextual = new Map<string, EntitySummary | undefined>();
  for (const ip of ips) {
    const h = network.resolve(ip);
    for (const dim of scoringDimensions(h)) {
      if (!dim.entity) continue;
      const key = slotKey(dim.code, dim.entity.key);
      if (!published.has(key)) published.set(key, await global.summaryAt(dim.code, dim.entity.key, t));
      if (own && !contextual.has(key)) contextual.set(key, await own.summaryAt(dim.code, dim.entity.key, t));
    }
    const score = scoreIp(
      h,
      (code, key) => published.get(slotKey(code, key)),
      own ? (code, key) => contextual.get(slotKey(code, key)) : undefined,
      { now: t.getTime() },
    );
    out.push(score.overallScore);
    await nextTurn();
  }
  return out;
}
