/** The usage page's numbers: the per-key read (bounded), the y-axis scale, labels, and the chart's segments. */
import { describe, expect, it } from 'vitest';
import { createEmbeddedCounterStore } from '../../src/platform/counters/embedded.ts';
import { burstKey, keyQuotaKey, nextUtcMidnightMs, quotaKey, utcDay } from '../../src/platform/counters/keys.ts';
import { MAX_KEYS_IN_BREAKDOWN, readUsage, USAGE_DAYS } from '../../src/transport/web/usage.ts';
import {
  compactCount,
  seriesOf,
  shortDate,
  usageChart,
  yScale,
  KEYS_IN_COLOUR,
} from '../../src/transport/web/usage-chart.ts';
import type { KeyListing } from '../../src/domain/access/keys.ts';
import type { Tier } from '../../src/domain/metering/tiers.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 17, 12);
const TIER = { dailyLimit: 1000, directReportLimit: 100, agentDailyLimit: 500 } as Tier;
const key = (prefix: string, o: Partial<KeyListing> = {}): KeyListing => ({
  workspace: 'w',
  name: `key ${prefix}`,
  prefix,
  created_at: new Date(NOW - 40 * DAY).toISOString(),
  last_used_at: null,
  revoked_at: null,
  status: 'active',
  ...o,
});

describe('usage per key', () => {
  it("reads each key's days with the totals, and calls no listed key made as not attributed", async () => {
    const counters = await createEmbeddedCounterStore({ now: () => NOW });
    const call = async (prefix: string, nowMs: number) =>
      counters.meterCall({
        quotaKey: quotaKey('7', 'api_score', utcDay(nowMs)),
        dailyLimit: 1000,
        quotaExpireAtMs: nextUtcMidnightMs(NOW) + 35 * DAY,
        keyCountKey: keyQuotaKey('7', 'api_score', utcDay(nowMs), prefix),
        burstKey: burstKey('7', prefix),
        burstLimit: 100,
        burstWindowMs: 1000,
        nowMs,
      });
    for (let i = 0; i < 3; i++) await call('rk_a', NOW);
    await call('rk_b', NOW - 2 * DAY);
    await call('rk_gone', NOW - DAY); // a revoked key used yesterday
    await call('rk_old', NOW - DAY); // a revoked key the listing no longer brings (not used in the window by its record)
    await counters.consumeIfBelow(quotaKey('7', 'api_score', utcDay(NOW - 5 * DAY)), 1000, NOW + DAY); // counted before per-key counts
    const keys = [
      key('rk_a'),
      key('rk_b'),
      key('rk_idle'),
      key('rk_gone', { status: 'revoked', last_used_at: new Date(NOW - DAY).toISOString() }),
      key('rk_old', { status: 'revoked', last_used_at: new Date(NOW - 90 * DAY).toISOString() }),
    ];
    const u = await readUsage(counters, 7, TIER, keys, NOW);
    expect(u.days).toHaveLength(USAGE_DAYS);
    expect(u.days.at(-1)).toEqual({ day: '20260617', used: 3 });
    // most calls first; between equals, the most recently used first (rk_b's last use is not recorded here)
    expect(u.by_key.map((k) => [k.prefix, k.total, k.status])).toEqual([
      ['rk_a', 3, 'active'],
      ['rk_gone', 1, 'revoked'],
      ['rk_b', 1, 'active'],
      ['rk_idle', 0, 'active'],
    ]);
    expect(u.by_key[2]!.used.at(-3)).toBe(1);
    const notAttributed = Array(USAGE_DAYS).fill(0);
    notAttributed[USAGE_DAYS - 6] = 1; // the call counted before per-key counts
    notAttributed[USAGE_DAYS - 2] = 1; // rk_old's call: its key was not read
    expect(u.not_attributed).toEqual(notAttributed);
    expect(u.keys_not_read).toBe(0);
    await counters.close();
  });

  it(`reads at most ${MAX_KEYS_IN_BREAKDOWN} keys, the most recently used, and says how many it left out`, async () => {
    const counters = await createEmbeddedCounterStore({ now: () => NOW });
    const keys = Array.from({ length: MAX_KEYS_IN_BREAKDOWN + 7 }, (_, i) =>
      key(`rk_${String(i).padStart(8, '0')}`, { last_used_at: new Date(NOW - i * 60_000).toISOString() }),
    );
    const u = await readUsage(counters, 7, TIER, keys, NOW);
    expect(u.by_key).toHaveLength(MAX_KEYS_IN_BREAKDOWN);
    expect(u.by_key[0]!.prefix).toBe('rk_00000000');
    expect(u.keys_not_read).toBe(7);
    await counters.close();
  });
});

describe('usage chart', () => {
  it('scales the y-axis to the busiest day in steps of 1, 2 or 5 × 10^k', () => {
    expect(yScale(0)).toEqual({ top: 4, step: 1 });
    expect(yScale(1)).toEqual({ top: 1, step: 1 });
    expect(yScale(8)).toEqual({ top: 8, step: 2 });
    expect(yScale(9)).toEqual({ top: 10, step: 2 });
    expect(yScale(37)).toEqual({ top: 40, step: 10 });
    expect(yScale(950)).toEqual({ top: 1000, step: 200 });
    expect(yScale(4_200_000)).toEqual({ top: 5_000_000, step: 1_000_000 });
    for (const max of [1, 3, 7, 13, 99, 101, 12_345, 987_654]) {
      const { top, step } = yScale(max);
      expect(top, `max ${max}`).toBeGreaterThanOrEqual(max);
      expect(top / step, `max ${max}`).toBeLessThanOrEqual(5);
    }
  });

  it('labels counts compactly and dates as "Jun 17"', () => {
    expect([0, 5, 950, 1000, 1500, 25_000, 2_000_000, 1_250_000].map(compactCount)).toEqual([
      '0',
      '5',
      '950',
      '1k',
      '1.5k',
      '25k',
      '2M',
      '1.3M',
    ]);
    expect([shortDate('20260617'), shortDate('20260101'), shortDate('20261231')]).toEqual([
      'Jun 17',
      'Jan 1',
      'Dec 31',
    ]);
  });

  it(`draws the ${KEYS_IN_COLOUR} busiest keys in colour and everything else in one grey segment`, () => {
    const days = [
      { day: '20260616', used: 10 },
      { day: '20260617', used: 30 },
    ];
    const byKey = Array.from({ length: 7 }, (_, i) => ({
      prefix: `rk_${i}`,
      name: `k${i}`,
      status: 'active' as const,
      used: [1, 3],
      total: 4,
    }));
    const series = seriesOf({ days, by_key: byKey, not_attributed: [3, 9] });
    expect(series.map((s) => s.cls)).toEqual([
      'series-0',
      'series-1',
      'series-2',
      'series-3',
      'series-4',
      'series-rest',
    ]);
    expect(series.at(-1)).toEqual({
      label: 'other keys and calls not attributed to a key',
      used: [5, 15],
      cls: 'series-rest',
    });
    expect(seriesOf({ days, by_key: byKey.slice(0, 2), not_attributed: [0, 0] }).map((s) => s.cls)).toEqual([
      'series-0',
      'series-1',
    ]);
    // The limit line is drawn only when it falls within the scale.
    expect(String(usageChart({ days, by_key: byKey, not_attributed: [3, 9] }, 30))).toContain(
      'class="limit"><title>daily limit 30</title>',
    );
    expect(String(usageChart({ days, by_key: byKey, not_attributed: [3, 9] }, 1000))).toContain(
      'daily limit 1,000 (above this scale)',
    );
  });
});
