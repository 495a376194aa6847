import type { X509Certificate } from 'node:crypto';
import { LruMap } from '../../platform/lru-map.ts';
import { parsePemChain } from './paypal-signature.ts';
import { WebhookRejected } from './provider.ts';

/**
 * Where PayPal webhook signing certificates come from (PAYPAL-CERT-URL) and how they are cached.
 * The URL is chosen by whoever sends the delivery, so it is checked before anything is fetched, and
 * fetches are rate-limited per URL: a flood of forged deliveries cannot make us hammer PayPal.
 */

/** After its first fetch, a certificate URL is fetched again at most once per this interval. */
export const CERT_REFETCH_INTERVAL_MS = 5 * 60_000;
const MAX_URLS = 100;
const MAX_CERT_BYTES = 64 * 1024;

/**
 * A certificate may come from https on port 443 (implied or explicit) of a configured PayPal host, or
 * from the configured API origin itself (a sandbox or the dev provider), and from nowhere else: no other
 * port, scheme or host, no credentials in the URL.
 */
export function certUrlTrusted(u: URL, apiOrigin: string, hosts: readonly string[]): boolean {
  if (u.username || u.password) return false;
  // The URL parser drops an explicit default port: "https://host:443/" has port "".
  return u.origin === apiOrigin || (u.protocol === 'https:' && u.port === '' && hosts.includes(u.hostname));
}

/** GET the PEM chain; every failure is a WebhookRejected naming it. */
async function fetchChain(url: URL): Promise<X509Certificate[]> {
  let body: Buffer;
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    if (!r.ok) throw new WebhookRejected(`certificate fetch answered ${r.status}`);
    body = Buffer.from(await r.arrayBuffer());
  } catch (e) {
    throw e instanceof WebhookRejected ? e : new WebhookRejected(`certificate unavailable: ${String(e)}`);
  }
  if (body.length > MAX_CERT_BYTES) throw new WebhookRejected('certificate document too large');
  return parsePemChain(body.toString('utf8'));
}

type Entry = { chain: Promise<X509Certificate[]>; failed: boolean; nextFetchAt: number };

/**
 * Certificate chains by URL: fetched from trusted URLs only, parsed, reused (and checked again at every
 * use). A URL is fetched again when a signature does not verify with its cached chain (PayPal rotated the
 * certificate behind it) or its last fetch failed, at most once per CERT_REFETCH_INTERVAL_MS. A refetch
 * that fails keeps the chain we had.
 */
export class CertificateCache {
  private entries = new LruMap<string, Entry>(MAX_URLS);
  private now: () => number;
  private load: (url: URL) => Promise<X509Certificate[]>;

  constructor(
    private trusted: (url: URL) => boolean,
    o: { now?: () => number; load?: (url: URL) => Promise<X509Certificate[]> } = {},
  ) {
    this.now = o.now ?? Date.now;
    this.load = o.load ?? fetchChain;
  }

  /** The chain at `certUrl`: the cached one, or fetched now. */
  get(certUrl: string): Promise<X509Certificate[]> {
    let url: URL;
    try {
      url = this.check(certUrl);
    } catch (e) {
      return Promise.reject(e);
    }
    const e = this.entries.get(url.href);
    if (!e) return this.start(url, this.now()).chain; // the first fetch of a URL: the next one may follow at once
    if (e.failed && this.now() >= e.nextFetchAt) return this.start(url, this.now() + CERT_REFETCH_INTERVAL_MS).chain;
    return e.chain;
  }

  /**
   * A signature did not verify with `seen` (what get() gave): a chain fetched since (by now, or now), or
   * null when this URL was fetched too recently to fetch it again.
   */
  refetch(certUrl: string, seen: Promise<X509Certificate[]>): Promise<X509Certificate[]> | null {
    const url = this.check(certUrl);
    const had = this.entries.get(url.href);
    if (had && had.chain !== seen) return had.chain;
    if (had && this.now() < had.nextFetchAt) return null;
    const next = this.start(url, this.now() + CERT_REFETCH_INTERVAL_MS);
    next.chain.catch(() => {
      if (had && !had.failed && this.entries.get(url.href) === next)
        this.entries.set(url.href, { ...had, nextFetchAt: next.nextFetchAt });
    });
    return next.chain;
  }

  private check(certUrl: string): URL {
    let url: URL;
    try {
      url = new URL(certUrl);
    } catch {
      throw new WebhookRejected('PAYPAL-CERT-URL is not a URL');
    }
    if (!this.trusted(url))
      throw new WebhookRejected(
        `PAYPAL-CERT-URL ${url.origin} is not a trusted certificate origin (https on port 443 of a PayPal host)`,
      );
    return url;
  }

  private start(url: URL, nextFetchAt: number): Entry {
    const entry: Entry = { chain: this.load(url), failed: false, nextFetchAt };
    entry.chain.catch(() => {
      entry.failed = true;
    });
    this.entries.set(url.href, entry);
    return entry;
  }
}
