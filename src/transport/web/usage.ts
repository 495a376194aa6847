import { keyQuotaKey, quotaKey, utcDay } from '../../platform/counters/keys.ts';
import type { CounterStore } from '../../platform/counters/types.ts';
import type { Tier } from '../../domain/metering/tiers.ts';
import type { KeyListing } from '../../domain/access/keys.ts';

/** Days the usage chart shows (the counters keep 35: meter.ts). */
export const USAGE_DAYS = 30;
/** Keys whose own daily counts are read for the breakdown; the calls of any further keys show as not attributed. */
export const MAX_KEYS_IN_BREAKDOWN = 50;

/** One key's API score calls per day, aligned with Usage.days. */
export type KeyUsage = { prefix: string; name: string; status: KeyListing['status']; used: number[]; total: number };

/** Today's counts of the three quotas and the last 30 days of API score calls, in total and per key. */
export type Usage = {
  score: { used_today: number; daily_limit: number };
  direct_report: { used_today: number; daily_limit: number };
  /** The agent-protocol (MCP) surface's `score_ip` calls. */
  agent: { used_today: number; daily_limit: number };
  days: Array<{ day: string; used: number }>;
  /** Keys with calls in the 30 days (most calls first), then the unused active keys. */
  by_key: KeyUsage[];
  /** Calls of each day no listed key accounts for: counted before per-key counts existed, or by keys past the
   *  MAX_KEYS_IN_BREAKDOWN read (then `keys_not_read` says how many). */
  not_attributed: number[];
  keys_not_read: number;
};

/** The keys worth reading: active ones and those used within the window, most recently used first. */
function keysToRead(keys: KeyListing[], sinceMs: number): KeyListing[] {
  const lastUsed = (k: KeyListing) => (k.last_used_at ? Date.parse(k.last_used_at) : 0);
  return keys.filter((k) => k.status === 'active' || lastUsed(k) >= sinceMs).sort((a, b) => lastUsed(b) - lastUsed(a));
}

export async function readUsage(
  counters: CounterStore,
  workspaceId: number,
  tier: Tier,
  keys: KeyListing[],
  nowMs = Date.now(),
): Promise<Usage> {
  const dayList = Array.from({ length: USAGE_DAYS }, (_, i) => utcDay(nowMs - (USAGE_DAYS - 1 - i) * 86_400_000));
  const ws = String(workspaceId);
  const candidates = keysToRead(keys, nowMs - (USAGE_DAYS + 1) * 86_400_000);
  const read = candidates.slice(0, MAX_KEYS_IN_BREAKDOWN);
  // One counter call for the whole chart: every key shares the workspace's hash tag (one MGET on Redis).
  const [counts, reports, agent] = await Promise.all([
    counters.peekMany([
      ...dayList.map((d) => quotaKey(ws, 'api_score', d)),
      ...read.flatMap((k) => dayList.map((d) => keyQuotaKey(ws, 'api_score', d, k.prefix))),
    ]),
    counters.peek(quotaKey(ws, 'direct_report', utcDay(nowMs))),
    counters.peek(quotaKey(ws, 'agent_score', utcDay(nowMs))),
  ]);
  const totals = dayList.map((_, i) => counts[i] ?? 0);
  const byKey = read
    .map((k, n) => {
      const used = dayList.map((_, i) => counts[USAGE_DAYS * (n + 1) + i] ?? 0);
      return { prefix: k.prefix, name: k.name, status: k.status, used, total: used.reduce((a, b) => a + b, 0) };
    })
    .filter((k) => k.total > 0 || k.status === 'active')
    .sort((a, b) => b.total - a.total);
  return {
    score: { used_today: totals.at(-1) ?? 0, daily_limit: tier.dailyLimit },
    direct_report: { used_today: reports, daily_limit: tier.directReportLimit },
    agent: { used_today: agent, daily_limit: tier.agentDailyLimit },
    days: dayList.map((day, i) => ({ day, used: totals[i]! })),
    by_key: byKey,
    not_attributed: totals.map((t, i) => Math.max(0, t - byKey.reduce((sum, k) => sum + k.used[i]!, 0))),
    keys_not_read: candidates.length - read.length,
  };
}
