/**
 * One layer's history in compact form, and the score of any of its entities as it stood at a past instant t:
 * exactly what summarizeEvidence (evidence.ts) gives over the entity's evidence that existed at t (direct items,
 * plus every member IP's items rolled up with its weight, rollup.ts), computed from typed arrays instead of from
 * copies of the items.
 *
 * MEMORY (bounded by the layer's IPs and items, not by instants or dimensions): per item on an IP 8 + 8 + 4 bytes
 * (time, signed base weight, source); per IP its key and one entry per dimension (4 + 8 bytes) in the entity
 * index; items placed on an entity itself (CIDR reports, feed blocks, AS and organisation reports) are kept as
 * items, as the publisher keeps them.
 *
 * WORK: the score of an entity at t reads its members' items once (no copy, no per-item object); the caller
 * memoises it per instant, so one instant costs the items of the entities its sampled IPs touch. Long loops hand
 * the event loop back (event-loop-turn.ts).
 */
import { DIMENSION_CODES, type DimensionCode, type Hierarchy } from '../network/types.ts';
import {
  baseWeight,
  capOf,
  halfLifeOf,
  itemWeight,
  saturate,
  scoreFromMass,
  sourceKey,
  type EvidenceItem,
} from '../scoring/evidence.ts';
import { scoringDimensions } from '../scoring/hierarchy.ts';
import { effectiveSize, rollupWeight } from '../scoring/rollup.ts';
import { turnOver } from '../../platform/event-loop-turn.ts';

export const slotKey = (code: DimensionCode, key: string) => `${code}\u0000${key}`;

export async function nextTurn(): Promise<void> {
  const wait = turnOver();
  if (wait) await wait;
}

/** Sum in ascending order, as evidence.ts sums (so the result is the publisher's to the last bit). */
function sumSorted(values: Float64Array): number {
  if (values.length === 1) return values[0]!;
  values.sort();
  let acc = 0;
  for (const v of values) acc += v;
  return acc;
}
function sumSortedList(values: number[]): number {
  return values.length === 1 ? values[0]! : sumSorted(Float64Array.from(values));
}

/** Collects one layer's evidence; `seal()` turns it into a LayerHistory. */
export class LayerHistoryBuilder {
  private readonly ipIds = new Map<string, number>();
  private readonly ips: string[] = [];
  private readonly itemIp: number[] = [];
  private readonly itemAt: number[] = [];
  private readonly itemBase: number[] = [];
  private readonly itemSource: number[] = [];
  private readonly sourceIds = new Map<string, number>();
  private readonly sources: Array<{ key: string; feed: boolean }> = [];
  private readonly direct = new Map<string, EvidenceItem[]>();

  /** An item about one IP (it rolls up to the IP's networks and places). */
  addIp(ip: string, item: EvidenceItem): void {
    let id = this.ipIds.get(ip);
    if (id === undefined) {
      id = this.ips.length;
      this.ipIds.set(ip, id);
      this.ips.push(ip);
    }
    const base = baseWeight(item);
    // Weightless items change no mass (evidence.ts skips them); the IP still belongs to the population.
    if (base === 0) return;
    // Items on an IP carry no scale of their own (gather.ts places them as read): the roll-up weight is the scale.
    const key = sourceKey(item);
    let source = this.sourceIds.get(key);
    if (source === undefined) {
      source = this.sources.length;
      this.sourceIds.set(key, source);
      this.sources.push({ key, feed: item.type === 'feed' });
    }
    this.itemIp.push(id);
    this.itemAt.push(item.at.getTime());
    this.itemBase.push(base);
    this.itemSource.push(source);
  }

  /** An item placed on an entity itself (a subnet share of a CIDR, an AS, an organisation). */
  addDirect(code: DimensionCode, key: string, item: EvidenceItem): void {
    const k = slotKey(code, key);
    const list = this.direct.get(k);
    if (list) list.push(item);
    else this.direct.set(k, [item]);
  }

  async seal(resolve: (ip: string) => Hierarchy): Promise<LayerHistory> {
    const ipCount = this.ips.length;
    const n = this.itemIp.length;
    // Items grouped by IP (a counting sort: no sort of the whole history in one turn), then within each IP by
    // source (a member's items of one source are one roll-up group), then by time.
    const start = new Int32Array(ipCount + 1);
    for (const ip of this.itemIp) start[ip + 1]!++;
    for (let i = 0; i < ipCount; i++) start[i + 1]! += start[i]!;
    const fillItem = start.slice(0, ipCount);
    const order = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      order[fillItem[this.itemIp[i]!]!++] = i;
      if ((i & 4095) === 4095) await nextTurn();
    }
    const at = new Float64Array(n);
    const base = new Float64Array(n);
    const source = new Int32Array(n);
    for (let ip = 0; ip < ipCount; ip++) {
      const from = start[ip]!;
      const to = start[ip + 1]!;
      if (to - from > 1)
        order
          .subarray(from, to)
          .sort((a, b) => this.itemSource[a]! - this.itemSource[b]! || this.itemAt[a]! - this.itemAt[b]!);
      for (let k = from; k < to; k++) {
        const i = order[k]!;
        at[k] = this.itemAt[i]!;
        base[k] = this.itemBase[i]!;
        source[k] = this.itemSource[i]!;
      }
      if ((ip & 4095) === 4095) await nextTurn();
    }
    this.itemIp.length = this.itemAt.length = this.itemBase.length = this.itemSource.length = 0;

    // Entity index: every (entity, member IP, roll-up weight) of the layer's IPs, grouped by entity.
    const entityIds = new Map<string, number>();
    const most = ipCount * DIMENSION_CODES.length;
    const entryEntity = new Int32Array(most);
    const entryIp = new Int32Array(most);
    const entryWeight = new Float64Array(most);
    let entries = 0;
    for (let ip = 0; ip < ipCount; ip++) {
      const h = resolve(this.ips[ip]!);
      for (const dim of scoringDimensions(h)) {
        if (!dim.entity) continue;
        const k = slotKey(dim.code, dim.entity.key);
        let e = entityIds.get(k);
        if (e === undefined) entityIds.set(k, (e = entityIds.size));
        entryEntity[entries] = e;
        entryIp[entries] = ip;
        entryWeight[entries++] = dim.code === 'ip' ? 1 : rollupWeight(effectiveSize(dim.entity.size, h.version));
      }
      if ((ip & 1023) === 1023) await nextTurn();
    }
    const memberStart = new Int32Array(entityIds.size + 1);
    for (let i = 0; i < entries; i++) memberStart[entryEntity[i]! + 1]!++;
    for (let e = 0; e < entityIds.size; e++) memberStart[e + 1]! += memberStart[e]!;
    const fill = memberStart.slice(0, entityIds.size);
    const memberIp = new Int32Array(entries);
    const memberWeight = new Float64Array(entries);
    for (let i = 0; i < entries; i++) {
      const to = fill[entryEntity[i]!]!++;
      memberIp[to] = entryIp[i]!;
      memberWeight[to] = entryWeight[i]!;
      if ((i & 65535) === 65535) await nextTurn();
    }
    return new LayerHistory(this.ipIds, this.ips, { start, at, base, source }, this.sources, this.direct, {
      ids: entityIds,
      start: memberStart,
      ip: memberIp,
      weight: memberWeight,
    });
  }
}

type Items = { start: Int32Array; at: Float64Array; base: Float64Array; source: Int32Array };
type Members = { ids: Map<string, number>; start: Int32Array; ip: Int32Array; weight: Float64Array };

/** Per-source parts of one entity's mass (steps 3-4 of evidence.ts), reused between entities. */
type SourceParts = { bad: number[]; good: number[] };

export class LayerHistory {
  private readonly parts = new Map<string, SourceParts>();

  constructor(
    private readonly ipIds: ReadonlyMap<string, number>,
    /** The layer's IPs, by id. */
    readonly ips: readonly string[],
    private readonly items: Items,
    private readonly sources: ReadonlyArray<{ key: string; feed: boolean }>,
    private readonly direct: ReadonlyMap<string, EvidenceItem[]>,
    private readonly members: Members,
  ) {}

  /** When the IP was said to be bad: harmful reports and bad ratings, not feed listings (unsorted). */
  badTimes(key: string): number[] {
    const out: number[] = [];
    const ip = this.ipIds.get(key);
    if (ip === undefined) return out;
    for (let i = this.items.start[ip]!; i < this.items.start[ip + 1]!; i++)
      if (this.items.base[i]! > 0 && !this.sources[this.items.source[i]!]!.feed) out.push(this.items.at[i]!);
    return out;
  }

  private partsOf(key: string): SourceParts {
    let p = this.parts.get(key);
    if (!p) this.parts.set(key, (p = { bad: [], good: [] }));
    return p;
  }

  /** The entity's score from the evidence that existed at `t` (0 when it had none). */
  async scoreAt(code: DimensionCode, key: string, t: number): Promise<number> {
    const halfLife = halfLifeOf(code);
    const now = new Date(t);
    for (const p of this.parts.values()) p.bad.length = p.good.length = 0;
    for (const item of this.direct.get(slotKey(code, key)) ?? []) {
      const b = baseWeight(item);
      if (item.at.getTime() > t || b === 0) continue;
      const p = this.partsOf(sourceKey(item));
      (b > 0 ? p.bad : p.good).push(Math.abs(itemWeight(item, now, halfLife)));
    }
    const e = this.members.ids.get(slotKey(code, key));
    if (e !== undefined) {
      const { start, at, base, source } = this.items;
      const rolled = code !== 'ip';
      const bad: number[] = [];
      const good: number[] = [];
      for (let m = this.members.start[e]!; m < this.members.start[e + 1]!; m++) {
        const ip = this.members.ip[m]!;
        const scale = Math.min(1, Math.max(0, this.members.weight[m]!));
        let i = start[ip]!;
        const end = start[ip + 1]!;
        while (i < end) {
          // One source's items on this member: one roll-up group per side (evidence.ts: origin + scale).
          const s = source[i]!;
          const feed = this.sources[s]!.feed;
          bad.length = good.length = 0;
          for (; i < end && source[i] === s; i++) {
            if (at[i]! > t) continue;
            const decay = feed ? 1 : 2 ** (-Math.max(0, t - at[i]!) / halfLife);
            const w = base[i]! * decay;
            (base[i]! > 0 ? bad : good).push(Math.abs(w));
          }
          if (!bad.length && !good.length) continue;
          const p = this.partsOf(this.sources[s]!.key);
          if (rolled) {
            if (bad.length) p.bad.push(scale * saturate(sumSortedList(bad)));
            if (good.length) p.good.push(scale * saturate(sumSortedList(good)));
          } else {
            p.bad.push(...bad);
            p.good.push(...good);
          }
        }
        if ((m & 1023) === 1023) await nextTurn();
      }
    }
    const badMass: number[] = [];
    const goodMass: number[] = [];
    for (const [source, p] of this.parts) {
      if (!p.bad.length && !p.good.length) continue;
      const cap = capOf(source, code);
      badMass.push(p.bad.length ? saturate(sumSorted(Float64Array.from(p.bad)), cap) : 0);
      goodMass.push(p.good.length ? saturate(sumSorted(Float64Array.from(p.good)), cap) : 0);
    }
    if (!badMass.length) return 0;
    return scoreFromMass(sumSortedList(badMass), sumSortedList(goodMass));
  }
}
