import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';

/**
 * GraphiQL at /graphql in real headless Chromium on a machine without internet: every name but the
 * loopback address fails to resolve, so a script, style, font or worker from a CDN cannot load. The page
 * must render from the server's own assets, run a query with an API key typed into its headers editor,
 * send no request to another origin, and trigger no Content-Security-Policy violation.
 */
const ARTIFACTS = path.resolve('test-artifacts/graphiql');

describe(`GraphiQL in Chromium, offline (${backendName})`, () => {
  let s: TestServer;
  let browser: BrowserContext;
  let p: Page;
  const requests: string[] = [];
  const problems: string[] = [];
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    s = await startTestServer();
    browser = await launchChromium();
    p = await browser.newPage();
    p.on('request', (r) => requests.push(r.url()));
    p.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    p.on('console', (m) => {
      if (/content security policy/i.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    // Violations are reported as events on the document (workers' included: blocking one fires it in the page).
    await p.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        const w = window as unknown as { cspViolations?: string[] };
        (w.cspViolations ??= []).push(
          `${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`,
        );
      });
    });
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it("renders from the server's own assets and runs a query with a key, sending nothing to another origin", {
    timeout: 180_000,
  }, async () => {
    p.setDefaultTimeout(60_000); // a loaded CI machine parsing ~9 MB of editor scripts, not a performance assertion
    const key = (await s.createKey('graphiql-ws')).secret;
    const query = '{ viewer { workspace { name } } }';
    const page = await p.goto(`${s.url}/graphql?query=${encodeURIComponent(query)}`);
    expect(page!.headers()['content-security-policy']).toMatch(/script-src 'self'/);
    await p.waitForSelector('.graphiql-container .graphiql-query-editor');

    // The API key goes into the headers editor, as a user types it.
    await p.click('button:has-text("Headers")');
    await p.click('.graphiql-editor-tool .graphiql-editor:not(.hidden)');
    await p.keyboard.press('ControlOrMeta+A');
    await p.keyboard.press('Delete');
    await p.keyboard.insertText(JSON.stringify({ 'X-API-Key': key }));
    await p.click('.graphiql-execute-button');
    await p.waitForFunction(() => document.querySelector('.result-window')?.textContent?.includes('graphiql-ws'));
    await p.screenshot({ path: path.join(ARTIFACTS, `${backendName}-query-ran.png`), fullPage: true });

    const origin = new URL(s.url).origin;
    const foreign = requests.filter((u) => !u.startsWith('data:') && new URL(u).origin !== origin);
    expect(foreign).toEqual([]);
    expect(requests.filter((u) => u.includes('/graphiql/')).length).toBeGreaterThanOrEqual(3); // script, style, a worker at least
    const violations = await p.evaluate(() => (window as unknown as { cspViolations?: string[] }).cspViolations ?? []);
    expect([...violations, ...problems]).toEqual([]);
  });

  it('serves the page with its security headers, and the assets gzipped, cacheable for good, and only those it names', async () => {
    const pageRes = await fetch(`${s.url}/graphql`, { headers: { accept: 'text/html' } });
    const html = await pageRes.text();
    expect(pageRes.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; worker-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; font-src data:; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect([pageRes.headers.get('x-content-type-options'), pageRes.headers.get('x-frame-options')]).toEqual([
      'nosniff',
      'DENY',
    ]);
    expect(html).not.toMatch(/<script>|https?:\/\/(?!127\.0\.0\.1)/); // no inline script, no absolute URL anywhere
    const assets = [...html.matchAll(/(?:src|href)="(\/graphiql\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toHaveLength(3);
    for (const a of assets) {
      const res = await fetch(s.url + a); // fetch asks for gzip and inflates it
      expect(res.status, a).toBe(200);
      expect([
        res.headers.get('content-encoding'),
        res.headers.get('cache-control'),
        res.headers.get('x-content-type-options'),
      ]).toEqual(['gzip', 'public, max-age=31536000, immutable', 'nosniff']);
      expect((await res.text()).length).toBeGreaterThan(200);
    }
    const base = assets[0]!.replace(/[^/]*$/, '');
    for (const bad of [
      `${base}package.json`,
      `${base}..%2F..%2Fpackage.json`,
      `${base}__proto__`,
      '/graphiql/0000/graphiql.js',
    ]) {
      expect((await fetch(s.url + bad)).status, bad).toBe(404);
    }
  });
});
