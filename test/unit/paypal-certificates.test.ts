import { describe, expect, it } from 'vitest';
import type { X509Certificate } from 'node:crypto';
import {
  CERT_REFETCH_INTERVAL_MS,
  CertificateCache,
  certUrlTrusted,
} from '../../src/domain/billing/paypal-certificates.ts';
import { WebhookRejected } from '../../src/domain/billing/provider.ts';

/** Where webhook certificates may come from, and how often each URL may be fetched (clock and fetches simulated). */
const HOSTS = ['api.paypal.com', 'api.sandbox.paypal.com'];
const API = 'http://127.0.0.1:8089';
const URL_A = 'https://api.paypal.com/v1/notifications/certs/CERT-A';

describe('PAYPAL-CERT-URL origins', () => {
  const trusted = (u: string) => certUrlTrusted(new URL(u), API, HOSTS);
  it('accepts https on port 443 (implied or explicit) of a configured host, and the configured API origin', () => {
    for (const u of [
      URL_A,
      'https://api.paypal.com:443/v1/notifications/certs/CERT-A',
      'https://API.sandbox.paypal.com/x',
      `${API}/v1/notifications/certs/CERT-dev`,
    ]) {
      expect(trusted(u), u).toBe(true);
    }
  });
  it('refuses any other port, scheme, host or a URL carrying credentials', () => {
    for (const u of [
      'https://api.paypal.com:8443/v1/notifications/certs/CERT-A',
      'https://api.paypal.com:80/x',
      'http://api.paypal.com/x',
      'https://api.paypal.com.evil.test/x',
      'https://evil.test/x',
      'https://user:pw@api.paypal.com/x',
      'http://127.0.0.1:8090/x',
      'https://127.0.0.1:8089/x',
    ]) {
      expect(trusted(u), u).toBe(false);
    }
  });
});

describe('certificate cache', () => {
  /** A cache over a fake fetch: each fetch of a URL yields a new (distinct) chain, or fails while `failing` is set. */
  function setup() {
    let now = 1_000_000;
    let failing = false;
    const fetched: string[] = [];
    const cache = new CertificateCache(() => true, {
      now: () => now,
      load: async (url) => {
        fetched.push(url.href);
        if (failing) throw new WebhookRejected('certificate fetch answered 503');
        return [{ fetch: fetched.length } as unknown as X509Certificate];
      },
    });
    return {
      cache,
      fetched,
      advance: (ms: number) => {
        now += ms;
      },
      fail: (on: boolean) => {
        failing = on;
      },
    };
  }

  it('fetches a URL once and reuses the chain', async () => {
    const t = setup();
    expect(await t.cache.get(URL_A)).toBe(await t.cache.get(URL_A));
    expect(t.fetched).toEqual([URL_A]);
  });

  it('fetches again after a verification failure, then not again for the interval, however many deliveries fail', async () => {
    const t = setup();
    const first = t.cache.get(URL_A);
    await first;
    const fresh = t.cache.refetch(URL_A, first);
    expect(fresh).not.toBeNull();
    expect(await fresh).not.toBe(await first);
    expect(await t.cache.get(URL_A)).toBe(await fresh); // the fresh chain is the cached one now
    for (let i = 0; i < 50; i++) expect(t.cache.refetch(URL_A, fresh!)).toBeNull(); // forged deliveries: no more fetches
    expect(t.fetched).toHaveLength(2);
    t.advance(CERT_REFETCH_INTERVAL_MS - 1);
    expect(t.cache.refetch(URL_A, fresh!)).toBeNull();
    t.advance(1);
    await t.cache.refetch(URL_A, fresh!);
    expect(t.fetched).toHaveLength(3);
  });

  it('hands a delivery that failed with an older chain the one fetched since, without fetching', async () => {
    const t = setup();
    const first = t.cache.get(URL_A);
    await first;
    const [a, b] = [t.cache.refetch(URL_A, first), t.cache.refetch(URL_A, first)]; // two deliveries fail at once
    expect(await b).toBe(await a);
    expect(t.fetched).toHaveLength(2);
  });

  it('keeps the chain it had when a refetch fails, and waits the interval before trying again', async () => {
    const t = setup();
    const first = t.cache.get(URL_A);
    const chain = await first;
    t.fail(true);
    await expect(t.cache.refetch(URL_A, first)).rejects.toThrow(/503/);
    expect(await t.cache.get(URL_A)).toBe(chain);
    expect(t.cache.refetch(URL_A, t.cache.get(URL_A))).toBeNull();
    expect(t.fetched).toHaveLength(2);
  });

  it('does not fetch a failing URL on every delivery: once more at once, then once per interval', async () => {
    const t = setup();
    t.fail(true);
    for (let i = 0; i < 20; i++) await expect(t.cache.get(URL_A)).rejects.toThrow(/503/);
    expect(t.fetched).toHaveLength(2);
    t.advance(CERT_REFETCH_INTERVAL_MS);
    t.fail(false);
    expect(await t.cache.get(URL_A)).toEqual([{ fetch: 3 }]);
  });

  it('refuses an untrusted URL or a non-URL without fetching', async () => {
    const cache = new CertificateCache((u) => u.hostname === 'api.paypal.com', {
      load: async () => {
        throw new Error('fetched');
      },
    });
    await expect(cache.get('https://evil.test/cert')).rejects.toThrow(/not a trusted certificate origin/);
    await expect(cache.get('not a url')).rejects.toThrow(/not a URL/);
  });
});
