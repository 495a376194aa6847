import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/**
 * Debian's chromium, headless, in a fresh profile directory (playwright passes --user-data-dir for a persistent
 * context) that is removed once `close()` has ended the browser process (the context's 'close' event comes before
 * chromium stops writing to it). `viewport` fixes the window's size at a scale of 1.
 */
export async function launchChromium(viewport?: { width: number; height: number }): Promise<BrowserContext> {
  const profile = mkdtempSync(path.join(tmpdir(), 'chromium-profile-'));
  const remove = () => rmSync(profile, { recursive: true, force: true });
  try {
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      ...(viewport ? { viewport, deviceScaleFactor: 1 } : {}),
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    const close = browser.close.bind(browser);
    browser.close = async (options) => {
      try {
        await close(options);
      } finally {
        remove();
      }
    };
    return browser;
  } catch (e) {
    remove();
    throw e;
  }
}
