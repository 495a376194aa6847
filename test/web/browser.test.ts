import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { confirmationLink, startControlPlane, type ControlPlaneHarness } from './harness.ts';
import { backendName } from '../helpers/backend.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

/** The whole API-mode journey in real headless Chromium; screenshots go to test-artifacts/. */
const ARTIFACTS = path.resolve('test-artifacts/control-plane');

describe(`control plane in Chromium (${backendName})`, () => {
  let h: ControlPlaneHarness;
  let browser: BrowserContext;
  let p: Page;
  let rx: Receiver;
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    rx = await startReceiver();
    h = await startControlPlane({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
    browser = await launchChromium();
    p = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await rx?.close();
  });
  const shot = (name: string) =>
    p.screenshot({ path: path.join(ARTIFACTS, `${backendName}-${name}.png`), fullPage: true });

  it('registers, confirms the e-mailed link, creates a key shown once, buys a tier through the e-mailed approval URL, sets and expires an override rule, makes and deletes a watch, creates a webhook endpoint and sends it a test event, and revokes the key', {
    timeout: 300_000,
  }, async () => {
    p.setDefaultTimeout(60_000); // a loaded CI machine, not a performance assertion
    await p.goto(`${h.url}/workspace/register`);
    await p.fill('input[name=email]', 'chromium@example.com');
    await p.fill('input[name=password]', 'correct horse battery');
    await p.click('main button[type=submit]');
    expect(await p.textContent('#check-inbox')).toContain('chromium@example.com');
    await shot('registered');

    // The link from the message the SMTP server received: it asks for the password chosen at registration.
    await p.goto(await confirmationLink(h.mailTo, 'chromium@example.com'));
    expect(await p.textContent('main form')).toContain('chromium@example.com');
    await p.fill('input[name=password]', 'correct horse battery');
    await Promise.all([p.waitForURL(`${h.url}/workspace/keys`), p.click('#confirm')]);

    await p.fill('input[name=name]', 'browser key');
    await p.click('main form button:has-text("Create key")');
    const secret = (await p.textContent('#secret'))!.trim();
    expect(secret).toMatch(/^rk_/);
    expect(await p.textContent('#new-key')).toContain('only time it is shown');
    await shot('keys-created');
    await p.goto(`${h.url}/workspace/keys`);
    expect(await p.content()).not.toContain(secret);

    const score = () =>
      fetch(`${h.url}/risk_api/score/`, {
        method: 'POST',
        headers: { 'x-api-key': secret, 'content-type': 'application/json' },
        body: '{"ip":"8.8.8.8"}',
      });
    const refused = await score();
    expect(refused.status, await refused.text()).toBe(403);

    await p.goto(`${h.url}/workspace/subscription`);
    await p.check('#tier-developer');
    await p.click('main form button:has-text("Request this tier")');
    await p.waitForURL(/sent=1/);
    expect(await p.textContent('#request-status')).toBe('pending');
    await shot('subscription-pending');

    const mail = await h.mailTo('chromium@example.com', /checkoutnow/);
    const approval = /(http:\/\/127\.0\.0\.1:\d+\/checkoutnow\?ba_token=I-[A-Z0-9]+)/.exec(mail.text)?.[1];
    expect(approval, mail.text).toBeDefined();
    await p.goto(approval!);
    await p.click('#return');
    await p.waitForURL(`${h.url}/workspace/subscription`);
    expect(await p.textContent('#request-status')).toBe('active');
    expect(await p.textContent('#current-tier')).toContain('Developer');
    await shot('subscription-active');

    const ok = await score();
    expect(ok.status, await ok.text()).toBe(200);

    // An override rule made on the Overrides page changes the key's next score, then is expired there.
    await p.click('header a:has-text("Overrides")');
    await p.fill('input[name=target]', '8.8.8.8');
    await p.selectOption('select[name=action]', 'deny');
    await p.fill('input[name=reason]', 'seen in our chargebacks');
    await p.selectOption('select[name=expires_in]', '1d');
    await Promise.all([
      p.waitForURL(/\/workspace\/overrides\?created=\d+$/),
      p.click('#create-rule button[type=submit]'),
    ]);
    expect(await p.textContent('#rules tbody tr')).toContain('seen in our chargebacks');
    await shot('override-created');
    const overridden = (await (await score()).json()) as {
      score: { overall_risk_level: string };
      override: { action: string; reason: string } | null;
    };
    expect([overridden.score.overall_risk_level, overridden.override?.action, overridden.override?.reason]).toEqual([
      'critical',
      'deny',
      'seen in our chargebacks',
    ]);
    await Promise.all([p.waitForURL(/expired=\d+$/), p.click('#rules button:has-text("Expire")')]);
    expect(await p.locator('#no-rules').isVisible()).toBe(true);
    expect(await p.locator('#audit tbody tr').count()).toBe(2);

    // A webhook endpoint made on the Webhooks page: its secret shown once verifies the test event the receiver gets.
    await p.click('header a:has-text("Webhooks")');
    await p.fill('input[name=url]', rx.url);
    await p.check('input[name=event_types][value="watch.reported"]');
    await Promise.all([p.waitForSelector('#new-secret'), p.click('#create-endpoint button[type=submit]')]);
    const hookSecret = (await p.textContent('#secret'))!;
    expect(hookSecret).toMatch(/^whsec_/);
    rx.secrets.add(hookSecret);
    await shot('webhook-created');
    await Promise.all([
      p.waitForURL(/\/workspace\/webhooks\/deliveries\?endpoint=\d+&tested=\d+$/),
      p.click('#endpoints button:has-text("Send test event")'),
    ]);
    expect(await p.textContent('#deliveries tbody tr td[data-status]')).toContain('delivered');
    expect(rx.received.at(-1)!.verifiedWith).toEqual([hookSecret]);
    await Promise.all([p.waitForURL(/resent=\d+$/), p.click('#deliveries button:has-text("Re-send")')]);
    expect(await p.locator('#deliveries tr[data-attempt]').count()).toBe(2);
    await shot('webhook-deliveries');

    const body = (await (await score()).json()) as { links?: { ip?: string }; override: unknown };
    expect(body.override).toBeNull();

    // A watch made on the Watches page, a bad one refused with its field named, then the watch deleted there.
    await p.click('header a:has-text("Watches")');
    await p.fill('input[name=target]', 'NL');
    await Promise.all([p.waitForLoadState(), p.click('#create-watch button[type=submit]')]);
    expect(await p.textContent('#target-error')).toContain('countries cannot be watched');
    await p.fill('input[name=target]', '8.8.8.0/24');
    await p.fill('input[name=score_threshold]', '60');
    await p.fill('input[name=note]', 'card testing ring');
    await Promise.all([
      p.waitForURL(/\/workspace\/watches\?created=\d+$/),
      p.click('#create-watch button[type=submit]'),
    ]);
    expect(await p.textContent('#watches tbody tr')).toContain('8.8.8.0/24');
    await shot('watch-created');
    await Promise.all([p.waitForURL(/deleted=\d+$/), p.click('#watches button:has-text("Delete")')]);
    expect(await p.locator('#no-watches').isVisible()).toBe(true);

    await p.goto(`${h.url}/workspace/usage`);
    expect(await p.textContent('#score-usage')).toBe('3 / 1000');
    expect(await p.locator('#usage-chart g.day').count()).toBe(30);
    await shot('usage');

    if (body.links?.ip) {
      await p.goto(body.links.ip); // as if opened from anywhere: the link alone spends nothing
      expect(await p.textContent('#report-quota')).toContain('0 / 100');
      await p.click('#open-report');
      expect(await p.textContent('#report-quota')).toContain('1 / 100');
      await shot('report');
      await p.goto(`${h.url}/workspace/usage`);
      expect([await p.textContent('#score-usage'), await p.textContent('#report-usage')]).toEqual([
        '3 / 1000',
        '1 / 100',
      ]); // the report view counted on its own quota only;
    }

    await p.goto(`${h.url}/workspace/keys`);
    await p.click('text=Revoke…');
    await Promise.all([p.waitForURL(`${h.url}/workspace/keys`), p.click('main form button[type=submit]')]);
    expect(await p.textContent('tbody tr td:nth-child(5)')).toBe('revoked');
    const after = await score();
    expect(after.status, await after.text()).toBe(401);
  });
});
