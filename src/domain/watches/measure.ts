import type { NetworkIndex } from '../network/types.ts';
import type { Snapshot } from '../publishing/index.ts';
import { cidrTarget } from '../publishing/targets.ts';
import { riskLevel, type RiskLevel } from '../scoring/levels.ts';
import { scoreIp } from '../scoring/score.ts';
import { callerScore } from '../lookups/caller-score.ts';
import type { IpMemoryCache } from '../memory/ip-memory.ts';
import type { WatchTargetKind } from './target.ts';

/** What a publication says of a watched target, as the watch compares it: a score 0-100 and its level. */
export type Measure = { score: number; level: RiskLevel };

/** Subnets a cidr watch reads the community signal of, at most: the block's first ones (docs/watches.md). */
export const SPIKE_SUBNETS = 16;

/**
 * The score a watch follows, from ONE snapshot, for the watching workspace:
 * - ip: the overall score the workspace's score answer gives before any override rule (lookups/caller-score.ts:
 *   the published layers plus its live own verdict, when the measurer holds the memory; a watch follows the
 *   evidence, not the workspace's own decision);
 * - asn: the AS dimension's score (the higher of the global and the workspace's summary, as the score takes it);
 * - cidr: the highest such score among the announced subnets the block overlaps (a /32 or /128 is that IP),
 *   found as the publisher spreads evidence on a block (publishing/targets.ts, at most MAX_CIDR_STEPS subnets).
 * An entity without any summary scores 0 (minimal). Subject watches have no score: null.
 */
export class TargetMeasurer {
  /** cidr → its subnet keys (or its one IP): a resolution shared by every workspace watching the block in one run. */
  private readonly blocks = new Map<string, { ip: string } | { subnets: string[] }>();

  constructor(
    private readonly snapshot: Snapshot,
    private readonly network: NetworkIndex,
    /** This process's copy of every workspace's memory, and the instant the own verdicts are read at. */
    private readonly own: { memory: IpMemoryCache; nowMs: number } | null = null,
  ) {}

  measure(kind: WatchTargetKind, target: string, workspaceId: number): Measure | null {
    switch (kind) {
      case 'ip':
        return this.ip(target, workspaceId);
      case 'asn':
        return this.entity('asn', target, workspaceId);
      case 'cidr': {
        const block = this.block(target);
        if ('ip' in block) return this.ip(block.ip, workspaceId);
        const best = Math.max(0, ...block.subnets.map((key) => this.entity('subnet', key, workspaceId).score));
        return { score: best, level: riskLevel(best) };
      }
      case 'subject':
        return null;
    }
  }

  /** The community entity keys whose spike a watch follows: the IP, the AS, or the block's first subnets. */
  spikeKeys(kind: WatchTargetKind, target: string): string[] {
    switch (kind) {
      case 'ip':
        return [`ip:${target}`];
      case 'asn':
        return [`asn:${target}`];
      case 'cidr': {
        const block = this.block(target);
        return 'ip' in block ? [`ip:${block.ip}`] : block.subnets.slice(0, SPIKE_SUBNETS).map((key) => `subnet:${key}`);
      }
      case 'subject':
        return [];
    }
  }

  private ip(ip: string, workspaceId: number): Measure {
    const h = this.network.resolve(ip);
    const score = this.own
      ? callerScore(h, this.snapshot, workspaceId, this.own.memory, this.own.nowMs)
      : scoreIp(h, this.snapshot.global, this.snapshot.contextual(workspaceId));
    return { score: score.overallScore, level: score.overallRiskLevel };
  }

  private entity(code: 'asn' | 'subnet', key: string, workspaceId: number): Measure {
    const score = Math.max(
      this.snapshot.global(code, key)?.score ?? 0,
      this.snapshot.contextual(workspaceId)(code, key)?.score ?? 0,
    );
    return { score, level: riskLevel(score) };
  }

  private block(cidr: string): { ip: string } | { subnets: string[] } {
    let block = this.blocks.get(cidr);
    if (!block) {
      const t = cidrTarget(this.network, cidr);
      block = t.kind === 'ip' ? { ip: t.ip } : { subnets: t.kind === 'subnets' ? t.subnets.map((s) => s.key) : [] };
      this.blocks.set(cidr, block);
    }
    return block;
  }
}
