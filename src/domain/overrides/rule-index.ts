import { bytesToWords, parseV4, parseV6Into, wordsText } from '../network/address-words.ts';
import { parseIp } from '../network/ip.ts';
import { networkOf } from '../network/cidr.ts';
import type { Hierarchy } from '../network/types.ts';
import type { OverrideAction } from './schemas.ts';
import type { TargetKind } from './target.ts';

/** A rule as the score path holds it: what it covers, what it does, and until when. */
export type HeldRule = {
  id: number;
  workspaceId: number;
  targetKind: TargetKind;
  target: string;
  action: OverrideAction;
  points: number;
  reason: string;
  expiresAt: Date | null;
  expiredAt: Date | null;
  revision: number;
};

/** Rules in force at `nowMs`: not expired by someone and not past their own expiry. */
export function inForce(rule: Pick<HeldRule, 'expiredAt' | 'expiresAt'>, nowMs: number): boolean {
  return rule.expiredAt === null && (rule.expiresAt === null || rule.expiresAt.getTime() > nowMs);
}

/** The same rule as a Prisma filter on OverrideRule rows, and its negation (rules no longer in force). */
export const inForceWhere = (now: Date) => ({ expiredAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] });
export const notInForceWhere = (now: Date) => ({ OR: [{ expiredAt: { not: null } }, { expiresAt: { lte: now } }] });

/**
 * One workspace's rules, indexed so finding the one that applies to an IP costs a handful of map reads however
 * many rules there are: a map per target kind, and for blocks one map per prefix length in use (tried longest
 * first, so only the lengths the workspace actually uses are computed). Each target holds its newest rule: a
 * target takes a new rule only once the previous one is no longer in force (changes.ts), so an older rule on the
 * same target never applies again.
 */
export class WorkspaceRules {
  private readonly ips = new Map<string, HeldRule>();
  private readonly v4 = new Map<number, Map<number, HeldRule>>();
  private readonly v6 = new Map<number, Map<string, HeldRule>>();
  private v4Prefixes: number[] = [];
  private v6Prefixes: number[] = [];
  private readonly asns = new Map<string, HeldRule>();
  private readonly countries = new Map<string, HeldRule>();
  /** The newest revision seen of every rule id, so a late copy of an older version never undoes a newer one. */
  private readonly revisions = new Map<number, number>();

  get size(): number {
    let n = this.ips.size + this.asns.size + this.countries.size;
    for (const m of this.v4.values()) n += m.size;
    for (const m of this.v6.values()) n += m.size;
    return n;
  }

  /** The rules in force at `nowMs`, each target's one (the blocklist lists and subtracts them). */
  inForce(nowMs: number): HeldRule[] {
    const out: HeldRule[] = [];
    const take = (m: Map<unknown, HeldRule>) => {
      for (const r of m.values()) if (inForce(r, nowMs)) out.push(r);
    };
    take(this.ips);
    for (const m of this.v4.values()) take(m);
    for (const m of this.v6.values()) take(m);
    take(this.asns);
    take(this.countries);
    return out;
  }

  /** Takes a rule row (new, or a newer version of one held); an expired rule leaves the index. */
  keep(rule: HeldRule): void {
    const seen = this.revisions.get(rule.id);
    if (seen !== undefined && seen >= rule.revision) return;
    this.revisions.set(rule.id, rule.revision);
    const { map, key } = this.slot(rule);
    const held = map.get(key);
    if (rule.expiredAt !== null) {
      if (held?.id === rule.id) map.delete(key);
    } else if (!held || held.id <= rule.id) {
      map.set(key, rule);
    }
    if (rule.targetKind === 'cidr') this.prefixesChanged();
  }

  /** The most specific rule in force for the IP: IP, then blocks by longest prefix, then AS, then country. */
  find(h: Hierarchy, nowMs: number): HeldRule | null {
    const ip = this.ips.get(h.ip);
    if (ip && inForce(ip, nowMs)) return ip;
    const block = h.version === 4 ? this.findV4(h.ip, nowMs) : this.findV6(h.ip, nowMs);
    if (block) return block;
    for (const d of h.dimensions) {
      const map = d.code === 'asn' ? this.asns : d.code === 'country' ? this.countries : null;
      const rule = map && d.entity ? map.get(d.entity.key) : undefined;
      if (rule && inForce(rule, nowMs)) return rule;
    }
    return null;
  }

  private findV4(ip: string, nowMs: number): HeldRule | null {
    if (this.v4Prefixes.length === 0) return null;
    const address = parseV4(ip);
    for (const prefix of this.v4Prefixes) {
      const rule = this.v4.get(prefix)!.get(v4Network(address, prefix));
      if (rule && inForce(rule, nowMs)) return rule;
    }
    return null;
  }

  private findV6(ip: string, nowMs: number): HeldRule | null {
    if (this.v6Prefixes.length === 0) return null;
    let words = [0, 0, 0, 0];
    if (!parseV6Into(ip, words, 0)) {
      const parsed = parseIp(ip); // canonical text is hex-only; this is the general parser's safety net
      if (!parsed.ok) return null;
      words = bytesToWords(parsed.bytes);
    }
    for (const prefix of this.v6Prefixes) {
      const rule = this.v6.get(prefix)!.get(wordsText(networkOf(words, prefix)));
      if (rule && inForce(rule, nowMs)) return rule;
    }
    return null;
  }

  private slot(rule: HeldRule): { map: Map<string | number, HeldRule>; key: string | number } {
    switch (rule.targetKind) {
      case 'ip':
        return { map: this.ips as Map<string | number, HeldRule>, key: rule.target };
      case 'asn':
        return { map: this.asns as Map<string | number, HeldRule>, key: rule.target };
      case 'country':
        return { map: this.countries as Map<string | number, HeldRule>, key: rule.target };
      case 'cidr': {
        const slash = rule.target.indexOf('/');
        const address = rule.target.slice(0, slash);
        const prefix = Number(rule.target.slice(slash + 1));
        if (!address.includes(':')) {
          let byNetwork = this.v4.get(prefix);
          if (!byNetwork) this.v4.set(prefix, (byNetwork = new Map()));
          return { map: byNetwork as Map<string | number, HeldRule>, key: v4Network(parseV4(address), prefix) };
        }
        let byNetwork = this.v6.get(prefix);
        if (!byNetwork) this.v6.set(prefix, (byNetwork = new Map()));
        return { map: byNetwork as Map<string | number, HeldRule>, key: address };
      }
    }
  }

  private prefixesChanged(): void {
    const used = (m: Map<number, Map<unknown, HeldRule>>) =>
      [...m]
        .filter(([, rules]) => rules.size > 0)
        .map(([p]) => p)
        .sort((a, b) => b - a);
    this.v4Prefixes = used(this.v4);
    this.v6Prefixes = used(this.v6);
  }
}

/** The network number of an IPv4 address (uint32) under a prefix length: its top `prefix` bits. */
function v4Network(address: number, prefix: number): number {
  return Math.floor(address / 2 ** (32 - prefix));
}
