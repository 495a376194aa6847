import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { seedAccount, startControlPlane, type ControlPlaneHarness } from './harness.ts';
import { backendName } from '../helpers/backend.ts';
import { seedReport } from '../helpers/publishing-fixtures.ts';

/**
 * The Model page in real headless Chromium, on a history seeded with a known answer for workspace A (the default
 * 30-day period and 7-day window, so every sample instant lies between 30 and 7 days ago):
 *   192.0.2.x is not used: the IPs are public, so they resolve to networks.
 *   8.8.8.8         A's PRIVATE fraud_confirmed/critical report every day of the last 40: at any instant the IP is
 *                   high in A's view and reported bad again within the week after → high, right
 *   208.67.222.222  a community spam/low report by A 120 days ago, nothing since → minimal, not reported bad
 *   1.1.1.1         B's PRIVATE reports every day: never in A's report (B's view would hold it)
 * So A's page shows 2 IPs: minimal 1 scored / 0 bad, high 1 / 1; no early-warning case (8.8.8.8 was first reported
 * before every instant); AUC 1.000.
 */
const ARTIFACTS = path.resolve('test-artifacts/model-page');
const DAY = 86_400_000;
const A = 'model.a@example.com';
const B = 'model.b@example.com';

describe(`Model page in Chromium (${backendName})`, () => {
  let h: ControlPlaneHarness;
  let browser: BrowserContext;
  let p: Page;
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startControlPlane({ smtp: false });
    await seedAccount(h.app, A);
    await seedAccount(h.app, B);
    const prisma = h.app.db.prisma;
    const workspaceOf = async (email: string) =>
      (await prisma.account.findUniqueOrThrow({ where: { email } })).workspaceId;
    const [a, b] = [await workspaceOf(A), await workspaceOf(B)];
    const now = Date.now();
    for (let d = 1; d <= 40; d++) {
      const createdAt = new Date(now - d * DAY);
      await seedReport(prisma, {
        workspaceId: a,
        kind: 'ipaddress',
        key: '8.8.8.8',
        visibility: 'workspace',
        severity: 'critical',
        createdAt,
      });
      await seedReport(prisma, {
        workspaceId: b,
        kind: 'ipaddress',
        key: '1.1.1.1',
        visibility: 'workspace',
        createdAt,
      });
    }
    await seedReport(prisma, {
      workspaceId: a,
      kind: 'ipaddress',
      key: '208.67.222.222',
      visibility: 'community',
      outcomeCode: 'spam',
      severity: 'low',
      createdAt: new Date(now - 120 * DAY),
    });
    browser = await launchChromium();
    p = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const signIn = async (email: string) => {
    await p.goto(`${h.url}/workspace/sign-in`);
    await p.fill('input[name=email]', email);
    await p.fill('input[name=password]', 'correct horse battery');
    await Promise.all([p.waitForURL(`${h.url}/workspace/`), p.click('main button[type=submit]')]);
  };
  const cells = async (level: string) =>
    p.$$eval(`#model-levels tr[data-level="${level}"] td`, (tds) => tds.map((td) => td.textContent!.trim()));

  it("shows how often each level was right on the workspace's own data, computed in the background", {
    timeout: 300_000,
  }, async () => {
    p.setDefaultTimeout(120_000); // a loaded CI machine, not a performance assertion
    await signIn(A);
    await p.click('header a:has-text("Model")');
    // The first visit starts the computation and says so; the page reloads itself until the table is there.
    expect(await p.textContent('main')).toMatch(/being computed|Level/);
    await p.waitForSelector('#model-levels');
    await p.screenshot({ path: path.join(ARTIFACTS, `${backendName}-model.png`), fullPage: true });

    expect(await p.textContent('#model-ips')).toBe('2');
    expect(await cells('minimal')).toEqual(['minimal', '1', '0', '0.0%']);
    expect(await cells('high')).toEqual(['high', '1', '1', '100.0%']);
    for (const level of ['low', 'medium', 'critical']) expect(await cells(level)).toEqual([level, '0', '0', '—']);
    expect(await p.textContent('#model-early-warning')).toContain('0 of 0');
    expect(await p.textContent('#model-auc')).toBe('1.000');
    // The chart: one bar per level, the high bar full height (1 of 1), the minimal bar empty.
    expect(await p.$$eval('#model-chart g.level', (gs) => gs.length)).toBe(5);
    expect(await p.getAttribute('#model-chart g[data-level="high"] rect', 'height')).toBe('172.0');
    expect(await p.getAttribute('#model-chart g[data-level="minimal"] rect', 'height')).toBe('0.0');
  });

  it("another workspace's page holds its own private reports, and A's numbers never include them", {
    timeout: 300_000,
  }, async () => {
    p.setDefaultTimeout(120_000);
    await p.click('header button:has-text("Sign out")');
    await signIn(B);
    await p.goto(`${h.url}/workspace/model`);
    await p.waitForSelector('#model-levels');
    // B sees the community IP and its own 1.1.1.1 (high, reported again), not A's private 8.8.8.8.
    expect(await p.textContent('#model-ips')).toBe('2');
    expect(await cells('high')).toEqual(['high', '1', '1', '100.0%']);
    expect(await p.content()).not.toContain('8.8.8.8');
  });

  it('is for signed-in sessions only', async () => {
    const res = await fetch(`${h.url}/workspace/model`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/workspace/sign-in');
  });
});
