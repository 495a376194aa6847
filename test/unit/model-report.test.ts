import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Metrics } from '../../src/platform/metrics.ts';
import { createLogger } from '../../src/platform/log.ts';
import { registerModelGauges } from '../../src/domain/observability/model-gauges.ts';
import type { NetworkIndex } from '../../src/domain/network/index.ts';
import { modelReport, parseDays } from '../../src/domain/quality/model-report.ts';
import { runCommand } from '../../src/transport/admin/commands.ts';
import { openTestDatabase, seedReport, seedWorkspace, type TestDatabase } from '../helpers/publishing-fixtures.ts';
import { sharedNetwork } from '../helpers/network.ts';

/**
 * The model report on a seeded history with a known answer. `now` is 2026-03-10T12:00Z, --since 2d and --window 1d
 * leave one sample instant, T = 2026-03-09T00:00Z; evidence before T sets each IP's level, reports in (T, T + 1 day]
 * are its outcome.
 *   8.8.8.8         fraud_confirmed/high community reports by A and B a day before T (≈ 60: high); A reports it
 *                   again after T → high, reported bad
 *   1.1.1.1         B's PRIVATE fraud_confirmed/high a day before T (≈ 45: medium in B's view) and again after T:
 *                   only in B's report
 *   9.9.9.9         nothing before T, a community report by A after T → minimal, reported bad, an early-warning
 *                   case that was not warned
 *   208.67.222.222  spam/medium community report by A before T (≈ 18: low), nothing after → low, not reported
 *   4.2.2.2         first reported 30 hours after T, outside the window → minimal, not reported bad
 */
const NOW = new Date('2026-03-10T12:00:00Z');
const T = Date.parse('2026-03-09T00:00:00Z');
const HOUR = 3_600_000;
const at = (hours: number) => new Date(T + hours * HOUR);

describe('model report on a seeded history', () => {
  let t: TestDatabase;
  let network: NetworkIndex;
  let a: number;
  let b: number;

  beforeAll(async () => {
    [t, network] = await Promise.all([openTestDatabase(), sharedNetwork()]);
    a = await seedWorkspace(t.prisma, 'report-a');
    b = await seedWorkspace(t.prisma, 'report-b');
    const report = (workspaceId: number, key: string, hours: number, more: object = {}) =>
      seedReport(t.prisma, {
        workspaceId,
        kind: 'ipaddress',
        key,
        visibility: 'community',
        outcomeCode: 'fraud_confirmed',
        severity: 'high',
        createdAt: at(hours),
        ...more,
      });
    await report(a, '8.8.8.8', -24);
    await report(b, '8.8.8.8', -24);
    await report(a, '8.8.8.8', 6);
    await report(b, '1.1.1.1', -24, { visibility: 'workspace' });
    await report(b, '1.1.1.1', 6, { visibility: 'workspace' });
    await report(a, '9.9.9.9', 12);
    await report(a, '208.67.222.222', -24, { outcomeCode: 'spam', severity: 'medium' });
    await report(b, '4.2.2.2', 30);
  });
  afterAll(async () => {
    await t?.close();
  });

  const table = (r: Awaited<ReturnType<typeof modelReport>>) =>
    Object.fromEntries(r.levels.map((l) => [l.level, [l.scored, l.reportedBad]]));

  it('deployment scope: community evidence only, each IP once', async () => {
    const r = await modelReport(t.prisma, network, { sinceDays: 2, windowDays: 1, now: NOW });
    expect(r.instants).toEqual(['2026-03-09T00:00:00.000Z']);
    expect(r.workspace).toBeNull();
    expect(r.ips).toBe(4); // 1.1.1.1 is private to B
    expect(table(r)).toEqual({ minimal: [2, 1], low: [1, 0], medium: [0, 0], high: [1, 1], critical: [0, 0] });
    expect(r.levels.find((l) => l.level === 'high')!.precision).toBe(1);
    expect(r.levels.find((l) => l.level === 'minimal')!.precision).toBe(0.5);
    expect(r.earlyWarning).toEqual({ cases: 1, warned: 0, share: 0 });
    // bad: 8.8.8.8 (high), 9.9.9.9 (minimal); good: 208.67.222.222 (low), 4.2.2.2 (minimal) → (1 + 0.5 + 1 + 0) / 4
    expect(r.auc).toBe(0.625);
  });

  it("a workspace's scope adds its private reports, as evidence and as outcomes, for it alone", async () => {
    const rb = await modelReport(t.prisma, network, { sinceDays: 2, windowDays: 1, now: NOW, workspaceId: b });
    expect(rb.workspace).toBe('report-b');
    expect(rb.ips).toBe(5);
    expect(table(rb)).toEqual({ minimal: [2, 1], low: [1, 0], medium: [1, 1], high: [1, 1], critical: [0, 0] });
    const ra = await modelReport(t.prisma, network, { sinceDays: 2, windowDays: 1, now: NOW, workspaceId: a });
    expect(ra.ips).toBe(4);
    expect(table(ra)).toEqual(table(await modelReport(t.prisma, network, { sinceDays: 2, windowDays: 1, now: NOW })));
  });

  it('has no instant when the window has not ended for any day of the period', async () => {
    const r = await modelReport(t.prisma, network, { sinceDays: 1, windowDays: 7, now: NOW });
    expect(r.instants).toEqual([]);
    expect(r.ips).toBe(0);
    expect(r.earlyWarning.share).toBeNull();
  });

  it('refuses bad periods with a coded error, and an unknown workspace', async () => {
    await expect(modelReport(t.prisma, network, { sinceDays: 0 })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(modelReport(t.prisma, network, { windowDays: 91 })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(modelReport(t.prisma, network, { workspaceId: 999_999 })).rejects.toMatchObject({ code: 'not_found' });
    expect(parseDays('--since', '30d', 1)).toBe(30);
    expect(parseDays('--since', '7', 1)).toBe(7);
    expect(parseDays('--since', undefined, 30)).toBe(30);
    expect(() => parseDays('--since', '30 days', 1)).toThrow(/--since must be a number of days/);
    const ctx = {
      db: t.db,
      dataDir: '',
      feedFetch: {} as never,
      pepper: 'x',
      network: async () => network,
      publicationsKept: 3,
    };
    await expect(runCommand('model report', { since: 'soon' }, ctx)).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(runCommand('model report', { workspace: 'nobody' }, ctx)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('is published as gauges once the background report has run, never by a scrape', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval'] });
    const metrics = new Metrics();
    const stop = registerModelGauges(metrics).start({ prisma: t.prisma, network, log: createLogger('silent') });
    try {
      expect((await metrics.exposition()).text).not.toMatch(/risk_model_level_ips\{/);
      vi.advanceTimersByTime(60_000); // the first run starts; it then works on real I/O
      vi.useRealTimers();
      let text = '';
      for (let i = 0; i < 400 && !/risk_model_level_ips\{/.test(text); i++) {
        await new Promise((r) => setTimeout(r, 50));
        text = (await metrics.exposition()).text;
      }
      // Deployment scope, the last 30 days of the real clock: the seeded evidence is months old by then, so its four
      // community IPs are sampled at minimal, none reported after; levels without IPs have no precision.
      expect(text).toMatch(/risk_model_level_ips\{level="minimal"\} 4\n/);
      expect(text).toMatch(/risk_model_level_ips\{level="critical"\} 0\n/);
      expect(text).toMatch(/risk_model_level_precision\{level="minimal"\} 0\n/);
      expect(text).not.toMatch(/risk_model_level_precision\{level="high"\}/);
    } finally {
      stop();
      vi.useRealTimers();
    }
  });
});
