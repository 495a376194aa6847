import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';

/**
 * GraphiQL as a newcomer opens it, in real headless Chromium at 1280 and 390 px: no request leaves the page
 * until a key is typed (so no invalid_api_key error from the placeholder), the query editor says how to add a key,
 * Run without a key answers that in the page, typing a key loads the schema by itself, and at 390 px the editors,
 * the Run button and the Headers tab are inside the screen with no sideways scroll.
 */
const ARTIFACTS = path.resolve('test-artifacts/graphiql');

describe(`GraphiQL opening without a key, at 1280 and 390 px (${backendName})`, () => {
  let s: TestServer;
  let browser: BrowserContext;
  let key: string;
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    s = await startTestServer();
    key = (await s.createKey('graphiql-open')).secret;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  /** A fresh page at `width`, opened on GraphiQL, with every POST it sends to /graphql recorded. */
  /** posts: the X-API-Key of each POST the page sent to /graphql. */
  async function open(width: number): Promise<{ p: Page; posts: string[] }> {
    const p = await browser.newPage();
    await p.setViewportSize({ width, height: width < 600 ? 844 : 900 });
    p.setDefaultTimeout(60_000); // a loaded CI machine parsing ~9 MB of editor scripts, not a performance assertion
    const posts: string[] = [];
    p.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/graphql') posts.push(r.headers()['x-api-key'] ?? '');
    });
    await p.goto(`${s.url}/graphql`, { waitUntil: 'networkidle' });
    await p.waitForSelector('.graphiql-container .graphiql-query-editor');
    return { p, posts };
  }

  const typeHeaders = async (p: Page, text: string) => {
    await p.click('button:has-text("Headers")');
    await p.click('.graphiql-editor-tool .graphiql-editor:not(.hidden)');
    await p.keyboard.press('ControlOrMeta+A');
    await p.keyboard.press('Delete');
    await p.keyboard.insertText(text);
  };

  it('opens with how to add a key and no request; Run without a key says so; a typed key loads the schema', {
    timeout: 180_000,
  }, async () => {
    const { p, posts } = await open(1280);
    const editor = (await p.locator('.graphiql-query-editor').textContent()) ?? '';
    expect(editor.replace(/\s+/g, ' '), editor).toContain('replace <API_KEY>');
    expect(posts, 'nothing sent with the placeholder key').toEqual([]);
    expect((await p.locator('.graphiql-response').textContent()) ?? '').not.toMatch(/error|invalid_api_key/i);
    await p.click('.graphiql-execute-button');
    // Monaco renders spaces as no-break spaces: \s matches both.
    await p.waitForFunction(() =>
      document
        .querySelector('.graphiql-response')
        ?.textContent?.replace(/\s+/g, ' ')
        .includes('Add your API key first'),
    );
    expect(posts).toEqual([]);
    await p.screenshot({ path: path.join(ARTIFACTS, `${backendName}-opened-1280.png`) });

    const introspected = p.waitForResponse(
      (r) => new URL(r.url()).pathname === '/graphql' && (r.request().postData() ?? '').includes('IntrospectionQuery'),
    );
    await typeHeaders(p, JSON.stringify({ 'X-API-Key': key }));
    const schema = await introspected;
    expect(
      schema.status(),
      `${schema.request().postData()?.slice(0, 80)} ${JSON.stringify(schema.request().headers())} ${await schema.text()}`,
    ).toBe(200);
    await p.click('.graphiql-execute-button');
    await p.waitForFunction(() => document.querySelector('.graphiql-response')?.textContent?.includes('graphiql-open'));
    expect(posts.length).toBeGreaterThanOrEqual(2); // the schema, then the query
    expect(new Set(posts), 'only the typed key was ever sent').toEqual(new Set([key]));
    await p.close();
  });

  it('fits a 390 px screen: editors, Run and Headers inside it, no sideways scroll', async () => {
    const { p } = await open(390);
    await p.screenshot({ path: path.join(ARTIFACTS, `${backendName}-opened-390.png`) });
    const m = await p.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const off: string[] = [];
      const check = (selector: string) => {
        const e = document.querySelector(selector);
        if (!e) return off.push(`${selector}: missing`);
        const box = e.getBoundingClientRect();
        if (
          box.left < 0 ||
          box.right > width + 0.5 ||
          (selector.endsWith('editor') || selector.endsWith('response') ? box.width < width * 0.75 : box.width < 20)
        )
          return off.push(`${selector}: ${Math.round(box.left)}-${Math.round(box.right)} of ${width}`);
        const at = document.elementFromPoint(box.left + box.width / 2, box.top + Math.min(box.height / 2, 20));
        if (!at || !(e === at || e.contains(at))) off.push(`${selector}: hidden under ${at?.className}`);
      };
      for (const sel of [
        '.graphiql-query-editor',
        '.graphiql-execute-button',
        '.graphiql-response',
        '.graphiql-editor-tools button',
      ])
        check(sel);
      return { page: document.documentElement.scrollWidth, width, off };
    });
    expect(m.page).toBeLessThanOrEqual(m.width);
    expect(m.off).toEqual([]);
    // and it runs a query there, its answer shown below the editors
    await typeHeaders(p, JSON.stringify({ 'X-API-Key': key }));
    await p.click('.graphiql-execute-button');
    await p.waitForFunction(() => document.querySelector('.graphiql-response')?.textContent?.includes('graphiql-open'));
    const [editors, response] = [
      await p.locator('.graphiql-editors').boundingBox(),
      await p.locator('.graphiql-response').boundingBox(),
    ];
    expect(response!.y, 'the answer is below the editors').toBeGreaterThanOrEqual(editors!.y + editors!.height - 1);
    expect(response!.height).toBeGreaterThan(100);
    await p.screenshot({ path: path.join(ARTIFACTS, `${backendName}-ran-390.png`) });
    await p.close();
  });
});
