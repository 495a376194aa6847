import type { PrismaClient } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';

/** An API subscription tier (rows seeded by migration; see the README's tier table). */
export type Tier = {
  code: string;
  name: string;
  scoreEligible: boolean;
  dailyLimit: number;
  burstPerSecond: number;
  directReportLimit: number;
  agentDailyLimit: number;
  priceCents: number;
  position: number;
};

/** The documented JSON form (`tiers list --json`, GraphQL, control plane). */
export function tierJson(t: Tier) {
  return {
    code: t.code,
    name: t.name,
    daily_limit: t.dailyLimit,
    score_eligible: t.scoreEligible,
    burst_per_second: t.burstPerSecond,
    direct_report_daily_limit: t.directReportLimit,
    agent_daily_limit: t.agentDailyLimit,
    price_cents: t.priceCents,
  };
}

/**
 * `score`, and every read of the published per-dimension scores it is computed from (REST `dimensions`, GraphQL
 * `ip`, `Subject.ipDimensions`, `dimensionEntity`), need a score-eligible tier: from those scores the paid score
 * can be rebuilt within a point. The dimension reads stay unmetered; only `score` counts against the quota.
 */
export function requireScoreEligible(tier: Tier, asked: 'score' | 'score_ip' | 'dimensions'): void {
  if (tier.scoreEligible) return;
  const what = asked === 'dimensions' ? 'the per-dimension scores that score is computed from' : asked;
  throw new AppError(
    'tier_not_eligible',
    `The ${tier.name} tier does not include ${what}. Choose an eligible API subscription tier in the workspace control plane (API mode) — rate and report stay free.`,
  );
}

export async function listTiers(prisma: PrismaClient) {
  return (await prisma.tier.findMany({ orderBy: { position: 'asc' } })).map(tierJson);
}

/**
 * Tiers held in memory: they change only by migration, so every process loads them once.
 * An unknown code (a tier removed by a later migration) falls back to the most restrictive tier.
 */
export class TierCatalog {
  private constructor(
    private readonly byCode: Map<string, Tier>,
    private readonly fallback: Tier,
  ) {}

  static async load(prisma: PrismaClient): Promise<TierCatalog> {
    const tiers = await prisma.tier.findMany({ orderBy: { position: 'asc' } });
    if (tiers.length === 0) throw new Error('no tiers in the database: migrations did not run');
    return new TierCatalog(new Map(tiers.map((t) => [t.code, t])), tiers[0]!);
  }

  get(code: string): Tier {
    return this.byCode.get(code) ?? this.fallback;
  }
  list(): Tier[] {
    return [...this.byCode.values()];
  }
}
