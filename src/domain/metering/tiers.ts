import type { PrismaClient } from '../../generated/prisma/client.ts';

/** An API subscription tier (rows seeded by migration; see the README's tier table). */
export type Tier = {
  code: string; name: string; scoreEligible: boolean; dailyLimit: number; burstPerSecond: number;
  directReportLimit: number; agentDailyLimit: number; priceCents: number; position: number;
};

/** The documented JSON form (`tiers list --json`, GraphQL, control plane). */
export function tierJson(t: Tier) {
  return {
    code: t.code, name: t.name, daily_limit: t.dailyLimit, score_eligible: t.scoreEligible,
    burst_per_second: t.burstPerSecond, direct_report_daily_limit: t.directReportLimit,
    agent_daily_limit: t.agentDailyLimit, price_cents: t.priceCents,
  };
}

export async function listTiers(prisma: PrismaClient) {
  return (await prisma.tier.findMany({ orderBy: { position: 'asc' } })).map(tierJson);
}

/**
 * Tiers held in memory: they change only by migration, so every process loads them once.
 * An unknown code (a tier removed by a later migration) falls back to the most restrictive tier.
 */
export class TierCatalog {
  private constructor(private readonly byCode: Map<string, Tier>, private readonly fallback: Tier) {}

  static async load(prisma: PrismaClient): Promise<TierCatalog> {
    const tiers = await prisma.tier.findMany({ orderBy: { position: 'asc' } });
    if (tiers.length === 0) throw new Error('no tiers in the database: migrations did not run');
    return new TierCatalog(new Map(tiers.map((t) => [t.code, t])), tiers[0]!);
  }

  get(code: string): Tier { return this.byCode.get(code) ?? this.fallback; }
  list(): Tier[] { return [...this.byCode.values()]; }
}
