import { quotaKey, utcDay } from '../../platform/counters/keys.ts';
import type { CounterStore } from '../../platform/counters/types.ts';
import type { Tier } from '../../domain/metering/tiers.ts';

/** Today's counts of the three quotas and the last 30 days of API score calls (counters keep 35 days). */
export type Usage = {
  score: { used_today: number; daily_limit: number };
  direct_report: { used_today: number; daily_limit: number };
  /** The agent-protocol (MCP) surface's `score_ip` calls. */
  agent: { used_today: number; daily_limit: number };
  days: Array<{ day: string; used: number }>;
};

export async function readUsage(counters: CounterStore, workspaceId: number, tier: Tier, nowMs = Date.now()): Promise<Usage> {
  const dayList = Array.from({ length: 30 }, (_, i) => utcDay(nowMs - (29 - i) * 86_400_000));
  const ws = String(workspaceId);
  const [scores, reports, agent] = await Promise.all([
    counters.peekMany(dayList.map((d) => quotaKey(ws, 'api_score', d))),
    counters.peek(quotaKey(ws, 'direct_report', utcDay(nowMs))),
    counters.peek(quotaKey(ws, 'agent_score', utcDay(nowMs))),
  ]);
  return {
    score: { used_today: scores.at(-1) ?? 0, daily_limit: tier.dailyLimit },
    direct_report: { used_today: reports, daily_limit: tier.directReportLimit },
    agent: { used_today: agent, daily_limit: tier.agentDailyLimit },
    days: dayList.map((day, i) => ({ day, used: scores[i] ?? 0 })),
  };
}
