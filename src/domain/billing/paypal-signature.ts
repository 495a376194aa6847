import { createVerify, X509Certificate } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { WebhookRejected } from './provider.ts';

/**
 * PayPal webhook signature, verified locally as PayPal documents it ("Verify the signature"):
 * the signed string is `<PAYPAL-TRANSMISSION-ID>|<PAYPAL-TRANSMISSION-TIME>|<webhook id>|<CRC32 of the raw body, decimal>`,
 * signed SHA256withRSA by the key of the certificate at PAYPAL-CERT-URL, the signature in
 * PAYPAL-TRANSMISSION-SIG (base64). The certificate is fetched only from trusted origins.
 */
export const TOLERANCE_MS = 5 * 60_000;

export function signedString(transmissionId: string, transmissionTime: string, webhookId: string, rawBody: Buffer): string {
  return `${transmissionId}|${transmissionTime}|${webhookId}|${crc32(rawBody) >>> 0}`;
}

export type SignatureHeaders = { transmissionId: string; transmissionTime: string; signature: string; certUrl: string; authAlgo: string };

export function readSignatureHeaders(h: Record<string, string | string[] | undefined>): SignatureHeaders {
  const one = (name: string) => { const v = h[name]; return typeof v === 'string' && v.length > 0 && v.length < 4096 ? v : null; };
  const transmissionId = one('paypal-transmission-id'), transmissionTime = one('paypal-transmission-time');
  const signature = one('paypal-transmission-sig'), certUrl = one('paypal-cert-url'), authAlgo = one('paypal-auth-algo');
  if (!transmissionId || !transmissionTime || !signature || !certUrl || !authAlgo) throw new WebhookRejected('unsigned: PAYPAL-* signature headers missing');
  return { transmissionId, transmissionTime, signature, certUrl, authAlgo };
}

/** Freshness: a delivery outside ±TOLERANCE_MS of our clock is refused (a captured delivery cannot be replayed later). */
export function checkFreshness(transmissionTime: string, nowMs: number): void {
  const at = Date.parse(transmissionTime);
  if (Number.isNaN(at)) throw new WebhookRejected('PAYPAL-TRANSMISSION-TIME is not a timestamp');
  if (Math.abs(nowMs - at) > TOLERANCE_MS) throw new WebhookRejected('stale: PAYPAL-TRANSMISSION-TIME outside the 5-minute tolerance');
}

export function verifySignature(certPem: string, signed: string, signatureB64: string, authAlgo: string): void {
  if (authAlgo !== 'SHA256withRSA') throw new WebhookRejected(`unsupported PAYPAL-AUTH-ALGO ${authAlgo}`);
  const cert = new X509Certificate(certPem);
  const now = Date.now();
  if (Date.parse(cert.validFrom) > now || Date.parse(cert.validTo) < now) throw new WebhookRejected('signing certificate is not valid now');
  const ok = createVerify('RSA-SHA256').update(signed).verify(cert.publicKey, Buffer.from(signatureB64, 'base64'));
  if (!ok) throw new WebhookRejected('forged: signature does not verify');
}

/** Certificates by URL: fetched once from a trusted origin, then reused. */
export class CertificateCache {
  private certs = new Map<string, Promise<string>>();
  constructor(private trusted: (url: URL) => boolean) {}

  get(certUrl: string): Promise<string> {
    let url: URL;
    try { url = new URL(certUrl); } catch { return Promise.reject(new WebhookRejected('PAYPAL-CERT-URL is not a URL')); }
    if (!this.trusted(url)) return Promise.reject(new WebhookRejected(`PAYPAL-CERT-URL host ${url.host} is not trusted`));
    let pending = this.certs.get(url.href);
    if (!pending) {
      pending = fetch(url, { signal: AbortSignal.timeout(10_000) }).then(async (r) => {
        if (!r.ok) throw new WebhookRejected(`certificate fetch answered ${r.status}`);
        return r.text();
      });
      pending.catch(() => this.certs.delete(url.href));
      if (this.certs.size > 100) this.certs.clear();
      this.certs.set(url.href, pending);
    }
    return pending;
  }
}
