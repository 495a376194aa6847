import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { seedAccount, startControlPlane, type ControlPlaneHarness } from './harness.ts';
import { backendName } from '../helpers/backend.ts';
import { createApiKey, setWorkspaceTier } from '../../src/domain/access/keys.ts';
import { publish } from '../../src/domain/publishing/index.ts';

/**
 * Every signed-in page at 1280 and 1440 px (laptop and desktop) and at 390 px (a phone in portrait), in real
 * headless Chromium, with rows long enough to strain each table: the page never scrolls sideways, and every
 * button, link and field is inside the viewport and not hidden by a scrolling box (the element at its centre is
 * itself). At 390 px tables stack their rows (each cell under its column's name) instead of scrolling.
 * Screenshots go to test-artifacts/page-widths/.
 */
const ARTIFACTS = path.resolve('test-artifacts/page-widths');
const EMAIL = 'widths@operations.example.com';
const LONG_URL =
  'https://hooks.example.com/receivers/risk-api/production/fraud-team/incoming-events?token=abcdef0123456789';

describe(`workspace pages at 1280, 1440 and 390 px (${backendName})`, () => {
  let h: ControlPlaneHarness;
  let browser: BrowserContext;
  let p: Page;
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startControlPlane({ smtp: false });
    await seedAccount(h.app, EMAIL);
    const prisma = h.app.db.prisma;
    const account = await prisma.account.findUniqueOrThrow({ where: { email: EMAIL }, include: { workspace: true } });
    await setWorkspaceTier(prisma, account.workspace.name, 'developer');
    const key = await createApiKey(prisma, h.app.pepper, {
      workspace: account.workspace.name,
      name: 'fraud pipeline for the checkout service',
      accountId: account.id,
    });
    const api = (route: string, body: object) =>
      fetch(`${h.url}/risk_api/${route}/`, {
        method: 'POST',
        headers: { 'x-api-key': key.secret, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => expect(r.status, await r.text()).toBeLessThan(300));
    await api('report', {
      kind: 'ipaddress',
      key: '203.0.113.7',
      outcome_code: 'fraud_confirmed',
      severity: 'critical',
      title: 'Card testing from this address against the checkout',
    });
    await api('rate', { ip: '203.0.113.7', rating: -1, note: 'chargeback on order 1234567' });
    await api('watches', { target: '2001:db8:1234:5678::/64', note: 'a long note about why this block is watched' });
    await api('watches', {
      subject: { kind: 'email', key: 'a.rather.long.mailbox.name@fraudulent-domain.example.com' },
    });
    await api('overrides', {
      target: '198.51.100.0/24',
      action: 'deny',
      reason: 'card testing from this block (confirmed)',
    });
    const endpoint = await prisma.webhookEndpoint.create({
      data: { workspaceId: account.workspaceId, url: LONG_URL, eventTypes: ['watch.score_changed'], secret: 'whsec_x' },
    });
    const event = await prisma.webhookEvent.create({
      data: {
        publicId: 'evt_0123456789abcdef01234567',
        workspaceId: account.workspaceId,
        type: 'watch.score_changed',
        data: {},
      },
    });
    const delivery = await prisma.webhookDelivery.create({
      data: {
        eventId: event.id,
        endpointId: endpoint.id,
        workspaceId: account.workspaceId,
        status: 'pending',
        attempts: 1,
      },
    });
    await prisma.webhookAttempt.create({
      data: {
        deliveryId: delivery.id,
        workspaceId: account.workspaceId,
        latencyMs: 5012,
        httpStatus: 502,
        error: 'HTTP 502 from the receiver',
        responseExcerpt: `<html><head><title>502 Bad Gateway</title></head><body>${'upstream_connect_error '.repeat(8)}</body></html>`,
      },
    });
    await publish(prisma, h.app.services.network);
    await h.app.services.publications.refresh();
    browser = await launchChromium({ width: 1280, height: 900 });
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

  /**
   * How wide the page scrolls, and each control that is off the viewport or hidden: its box against the
   * viewport, and whether the element at the centre of its box is itself (a box cut off by a scrolling table,
   * or under another element, is not).
   */
  const measure = () =>
    p.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const off: string[] = [];
      for (const e of document.querySelectorAll(
        'main button, main a, main input:not([type=hidden]), main select, header a, header button',
      )) {
        const box = e.getBoundingClientRect();
        if (box.width === 0 && box.height === 0) continue;
        const what = `${e.tagName.toLowerCase()} "${(e.textContent || (e as HTMLInputElement).name || '').trim().slice(0, 30)}"`;
        if (box.left < 0 || box.right > width + 0.5) {
          off.push(`${what}: ${Math.round(box.left)}-${Math.round(box.right)} of ${width}`);
          continue;
        }
        e.scrollIntoView({ block: 'center', inline: 'nearest' });
        const now = e.getBoundingClientRect();
        const x = Math.min(now.right - 1, now.left + now.width / 2);
        const at = document.elementFromPoint(x, now.top + now.height / 2);
        if (!at || !(e === at || e.contains(at) || at.contains(e))) off.push(`${what}: hidden under ${at?.tagName}`);
      }
      window.scrollTo(0, 0);
      const scrolling = [...document.querySelectorAll('main *')].filter(
        (e) =>
          (e.tagName === 'TABLE' || e.querySelector('table')) &&
          e.scrollWidth > e.clientWidth + 1 &&
          getComputedStyle(e).overflowX !== 'visible',
      );
      return {
        page: document.documentElement.scrollWidth,
        width,
        off,
        scrolling: scrolling.map((e) => `${e.tagName.toLowerCase()}#${e.id} ${e.scrollWidth}>${e.clientWidth}`),
      };
    });

  const PAGES = ['', 'keys', 'subscription', 'usage', 'overrides', 'watches', 'webhooks', 'webhooks/deliveries'];
  for (const width of [1280, 1440, 390]) {
    for (const page of PAGES) {
      it(`${width} px: /workspace/${page} fits, every control inside the viewport and visible`, async () => {
        await p.setViewportSize({ width, height: width < 600 ? 844 : 900 });
        await p.goto(`${h.url}/workspace/${page}`);
        const m = await measure();
        await p.screenshot({
          path: path.join(ARTIFACTS, `${backendName}-${width}-${page.replace('/', '-') || 'overview'}.png`),
          fullPage: true,
        });
        expect(m.page, 'the page does not scroll sideways').toBeLessThanOrEqual(m.width);
        expect(m.off, 'controls off the viewport or hidden').toEqual([]);
        if (width < 600) expect(m.scrolling, 'no box scrolls sideways on a phone').toEqual([]);
      });
    }
  }

  it('the report page shows evidence as tables, not JSON, at 390 px too', async () => {
    for (const width of [1280, 390]) {
      await p.setViewportSize({ width, height: 900 });
      await p.goto(`${h.url}/workspace/reports/ip/203.0.113.7`);
      await p.click('#open-report');
      await p.waitForSelector('#own-evidence');
      const text = await p.locator('main').textContent();
      expect(text).not.toMatch(/[{}"]/);
      const evidence = await p
        .locator('#own-evidence tr')
        .evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent!.trim())));
      expect(evidence).toContainEqual(['Reports', '1']);
      const m = await measure();
      expect(m.page).toBeLessThanOrEqual(m.width);
      expect(m.off).toEqual([]);
      await p.screenshot({ path: path.join(ARTIFACTS, `${backendName}-${width}-report.png`), fullPage: true });
    }
  });

  it("the overview states the workspace's use, keys, writes, rules, watches, failing deliveries and publication, and no other workspace's", async () => {
    await p.setViewportSize({ width: 1280, height: 900 });
    await p.goto(`${h.url}/workspace/`);
    const text = async (id: string) => (await p.textContent(`#${id}`))!.replace(/\s+/g, ' ').trim();
    expect(await text('overview-score')).toBe('0 / 1,000');
    expect(await text('overview-keys')).toContain('1 active: fraud pipeline for the checkout service');
    expect(await text('overview-writes')).toMatch(/rating bad on 203\.0\.113\.7.*report Card testing/);
    expect(await text('overview-state')).toMatch(
      /1 override rule in force.*2 watches.*1 failing endpoint, 1 delivery retrying/,
    );
    expect(await text('overview-publication')).toMatch(/^Scores come from publication \d+, published /);
    const other = 'other@operations.example.com';
    await seedAccount(h.app, other);
    const u = h.client();
    await u.signIn(other);
    const page = await u.request('/workspace/');
    expect(page.status).toBe(200);
    for (const theirs of ['203.0.113.7', 'fraud pipeline', 'hooks.example.com', 'failing endpoint'])
      expect(page.text, theirs).not.toContain(theirs);
    expect(page.text).toContain('No report or rating yet.');
    expect(page.text).toContain('0 override rules in force');
  });
});
