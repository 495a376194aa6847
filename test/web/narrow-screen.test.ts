import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { seedAccount, startControlPlane, type ControlPlaneHarness } from './harness.ts';
import { backendName } from '../helpers/backend.ts';
import { createApiKey, setWorkspaceTier } from '../../src/domain/access/keys.ts';
import { burstKey, keyQuotaKey, nextUtcMidnightMs, quotaKey, utcDay } from '../../src/platform/counters/keys.ts';
import { shortDate } from '../../src/transport/web/usage-chart.ts';

/**
 * The signed-in pages on a 390 px wide phone screen (an iPhone 12–15 in portrait), in real headless Chromium:
 * the header (title, links, a long e-mail address, Sign out) wraps inside the screen instead of pushing the
 * page sideways, and the usage page shows the per-key chart and table. Screenshots go to test-artifacts/.
 */
const ARTIFACTS = path.resolve('test-artifacts/narrow-screen');
const WIDTH = 390;
const EMAIL = 'a.rather.long.address.for.a.phone@operations.example.com';
const DAY_MS = 86_400_000;

describe(`workspace pages on a ${WIDTH} px screen (${backendName})`, () => {
  let h: ControlPlaneHarness;
  let browser: BrowserContext;
  let p: Page;
  const keys: Array<{ prefix: string; secret: string }> = [];
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startControlPlane({ smtp: false });
    await seedAccount(h.app, EMAIL);
    const account = await h.app.db.prisma.account.findUniqueOrThrow({
      where: { email: EMAIL },
      include: { workspace: true },
    });
    await setWorkspaceTier(h.app.db.prisma, account.workspace.name, 'developer');
    for (const name of ['fraud pipeline', 'nightly batch']) {
      keys.push(
        await createApiKey(h.app.db.prisma, h.app.pepper, {
          workspace: account.workspace.name,
          name,
          accountId: account.id,
        }),
      );
    }
    // Today: 3 calls with the first key and 1 with the second, through the API.
    for (const k of [keys[0]!, keys[0]!, keys[0]!, keys[1]!]) {
      const res = await fetch(`${h.url}/risk_api/score/`, {
        method: 'POST',
        headers: { 'x-api-key': k.secret, 'content-type': 'application/json' },
        body: '{"ip":"8.8.8.8"}',
      });
      expect(res.status, await res.text()).toBe(200);
    }
    // Three days ago: 8 calls of the second key, counted the way the meter counts them.
    const ws = String(account.workspaceId),
      then = Date.now() - 3 * DAY_MS;
    for (let i = 0; i < 8; i++) {
      await h.app.services.counters.meterCall({
        quotaKey: quotaKey(ws, 'api_score', utcDay(then)),
        dailyLimit: 1000,
        quotaExpireAtMs: nextUtcMidnightMs(Date.now()) + DAY_MS,
        keyCountKey: keyQuotaKey(ws, 'api_score', utcDay(then), keys[1]!.prefix),
        burstKey: burstKey(ws, `seed${i}`),
        burstLimit: 5,
        burstWindowMs: 1000,
        nowMs: then,
      });
    }
    browser = await launchChromium({ width: WIDTH, height: 844 });
    p = await browser.newPage();
    p.setDefaultTimeout(60_000); // a loaded CI machine, not a performance assertion
    await p.goto(`${h.url}/workspace/sign-in`);
    await p.fill('input[name=email]', EMAIL);
    await p.fill('input[name=password]', 'correct horse battery');
    await Promise.all([p.waitForURL(/\/workspace\/$/), p.click('main button[type=submit]')]);
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  /** The right edge of the header and of each thing in it, and how wide the page can be scrolled. */
  const widths = () =>
    p.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      header: document.querySelector('header')!.scrollWidth,
      parts: [...document.querySelectorAll('header > *, header form > *')].map((e) => ({
        what: e.textContent!.trim().slice(0, 40),
        right: Math.ceil(e.getBoundingClientRect().right),
      })),
    }));

  for (const page of ['keys', 'subscription', 'usage', 'overrides', 'webhooks', 'webhooks/deliveries']) {
    it(`keeps the ${page} page's header within the screen`, async () => {
      await p.goto(`${h.url}/workspace/${page}`);
      await p.screenshot({
        path: path.join(ARTIFACTS, `${backendName}-${page.replace('/', '-')}.png`),
        fullPage: true,
      });
      const w = await widths();
      expect(w.header, 'header scroll width').toBeLessThanOrEqual(WIDTH);
      for (const part of w.parts) expect(part.right, `right edge of "${part.what}"`).toBeLessThanOrEqual(WIDTH);
      expect(w.page, 'the page does not scroll sideways').toBeLessThanOrEqual(WIDTH);
      // The e-mail address is there (shortened with an ellipsis if need be), and so is the way out.
      expect(await p.locator('header form span').getAttribute('title')).toBe(EMAIL);
      expect(await p.locator('header button').isVisible()).toBe(true);
    });
  }

  it('shows the calls per key: stacked bars scaled to the busiest day, a y-axis, dates, a legend and a table', async () => {
    await p.goto(`${h.url}/workspace/usage`);
    expect(await p.textContent('#score-usage')).toBe('4 / 1000');
    expect(await p.locator('#usage-chart g.day').count()).toBe(30);
    const today = utcDay(Date.now()),
      before = utcDay(Date.now() - 3 * DAY_MS);
    // The busiest day (8 calls) sets the scale, not the daily limit of 1,000: y-axis 0, 2, 4, 6, 8, beside today's bar.
    const axis = await p.locator('#usage-chart > text').allTextContents();
    expect(axis.slice(0, 5)).toEqual(['0', '2', '4', '6', '8']);
    expect(axis).toContain(shortDate(today));
    const [axisLabel, todayBar] = [
      await p.locator('#usage-chart > text').first().boundingBox(),
      await p.locator(`#usage-chart g.day[data-day="${today}"]`).boundingBox(),
    ];
    expect(axisLabel!.x + axisLabel!.width, 'the y-axis is on the screen as the page opens').toBeLessThanOrEqual(WIDTH);
    expect(todayBar!.x + todayBar!.width, 'so is today').toBeLessThanOrEqual(WIDTH);
    const bar = (day: string) =>
      p
        .locator(`#usage-chart g.day[data-day="${day}"] rect:not(.hover)`)
        .evaluateAll((rects) =>
          rects.map((r) => ({ cls: r.getAttribute('class'), height: Number(r.getAttribute('height')) })),
        );
    const [busy, now] = [await bar(before), await bar(today)];
    expect(busy.map((r) => r.cls)).toEqual(['series-0']); // the second key has the most calls overall: first colour
    expect(now.map((r) => r.cls)).toEqual(['series-0', 'series-1']);
    expect(now[0]!.height * 8).toBeCloseTo(busy[0]!.height, 0); // 1 call against 8
    expect(now[1]!.height).toBeCloseTo(3 * now[0]!.height, 0);
    expect(await p.locator(`#usage-chart g.day[data-day="${today}"] title`).textContent()).toBe(
      `${shortDate(today)}: 4 score calls (nightly batch (${keys[1]!.prefix}): 1, fraud pipeline (${keys[0]!.prefix}): 3)`,
    );
    expect(await p.locator('#usage-legend li').allTextContents()).toEqual(
      [
        `nightly batch (${keys[1]!.prefix})`,
        `fraud pipeline (${keys[0]!.prefix})`,
        'daily limit 1,000 (above this scale)',
      ].map((t) => expect.stringContaining(t)),
    );
    const rows = await p
      .locator('#usage-by-key tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows).toEqual([
      [`nightly batch${keys[1]!.prefix}`, '1', '9', '9'],
      [`fraud pipeline${keys[0]!.prefix}`, '3', '3', '3'],
    ]);
    const table = await p.locator('#usage-by-key').boundingBox();
    expect(table!.x + table!.width, 'the per-key table fits the screen').toBeLessThanOrEqual(WIDTH);
    await p.screenshot({ path: path.join(ARTIFACTS, `${backendName}-usage-chart.png`), fullPage: true });
  });
});
