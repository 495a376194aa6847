import { createVerify, X509Certificate } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import { crc32 } from 'node:zlib';
import { WebhookRejected } from './provider.ts';

/**
 * PayPal webhook signature, verified locally as PayPal documents it ("Verify the signature"):
 * the signed string is `<PAYPAL-TRANSMISSION-ID>|<PAYPAL-TRANSMISSION-TIME>|<webhook id>|<CRC32 of the raw body, decimal>`,
 * signed SHA256withRSA by the key of the certificate at PAYPAL-CERT-URL, the signature in
 * PAYPAL-TRANSMISSION-SIG (base64). The certificate is fetched only from trusted origins
 * (paypal-certificates.ts), and it is believed only when it names PayPal's message-verification
 * host and chains, through the intermediates served with it, to a trust anchor (Node's bundled
 * roots plus PAYPAL_CERT_CA_FILE), every certificate of the path valid now.
 */
export const TOLERANCE_MS = 5 * 60_000;

/** The subject PayPal's webhook signing certificates carry (live, sandbox), as PayPal's own SDKs check it. */
export const SIGNING_CERT_NAMES = [
  'messageverificationcerts.paypal.com',
  'messageverificationcerts.sandbox.paypal.com',
] as const;

const MAX_CHAIN = 10;

export function signedString(
  transmissionId: string,
  transmissionTime: string,
  webhookId: string,
  rawBody: Buffer,
): string {
  return `${transmissionId}|${transmissionTime}|${webhookId}|${crc32(rawBody) >>> 0}`;
}

export type SignatureHeaders = {
  transmissionId: string;
  transmissionTime: string;
  signature: string;
  certUrl: string;
  authAlgo: string;
};

export function readSignatureHeaders(h: Record<string, string | string[] | undefined>): SignatureHeaders {
  const one = (name: string) => {
    const v = h[name];
    return typeof v === 'string' && v.length > 0 && v.length < 4096 ? v : null;
  };
  const transmissionId = one('paypal-transmission-id'),
    transmissionTime = one('paypal-transmission-time');
  const signature = one('paypal-transmission-sig'),
    certUrl = one('paypal-cert-url'),
    authAlgo = one('paypal-auth-algo');
  if (!transmissionId || !transmissionTime || !signature || !certUrl || !authAlgo)
    throw new WebhookRejected('unsigned: PAYPAL-* signature headers missing');
  return { transmissionId, transmissionTime, signature, certUrl, authAlgo };
}

/** Freshness: a delivery outside ±TOLERANCE_MS of our clock is refused (a captured delivery cannot be replayed later). */
export function checkFreshness(transmissionTime: string, nowMs: number): void {
  const at = Date.parse(transmissionTime);
  if (Number.isNaN(at)) throw new WebhookRejected('PAYPAL-TRANSMISSION-TIME is not a timestamp');
  if (Math.abs(nowMs - at) > TOLERANCE_MS)
    throw new WebhookRejected('stale: PAYPAL-TRANSMISSION-TIME outside the 5-minute tolerance');
}

/** Every certificate of a PEM text, in order (the leaf first, as PayPal serves it). */
export function parsePemChain(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new WebhookRejected('the certificate document holds no PEM certificate');
  if (blocks.length > MAX_CHAIN)
    throw new WebhookRejected(`the certificate document holds more than ${MAX_CHAIN} certificates`);
  try {
    return blocks.map((b) => new X509Certificate(b));
  } catch (e) {
    throw new WebhookRejected(`unreadable certificate: ${String(e)}`);
  }
}

/** The trust anchors: Node's bundled Mozilla roots plus the operator's own (PAYPAL_CERT_CA_FILE). */
export class TrustAnchors {
  private all: X509Certificate[] | null = null;
  private extra: X509Certificate[];

  /** `extraPem`: zero or more PEM CA certificates trusted in addition to Node's roots. */
  constructor(extraPem = '') {
    const blocks = extraPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    if (extraPem.trim() !== '' && blocks.length === 0) throw new Error('holds no PEM certificate');
    this.extra = blocks.map((b) => new X509Certificate(b));
  }

  get extraCount(): number {
    return this.extra.length;
  }

  /** Every anchor (Node's bundle, ~150 certificates, parsed once on first use). */
  list(): X509Certificate[] {
    this.all ??= [...rootCertificates.map((p) => new X509Certificate(p)), ...this.extra];
    return this.all;
  }
}

const validAt = (c: X509Certificate, nowMs: number) =>
  Date.parse(c.validFrom) <= nowMs && nowMs <= Date.parse(c.validTo);
const commonName = (c: X509Certificate) => /(?:^|\n)CN=([^\n]*)/.exec(c.subject)?.[1] ?? c.subject.replace(/\n/g, ', ');
const signedBy = (c: X509Certificate, issuer: X509Certificate) => c.checkIssued(issuer) && c.verify(issuer.publicKey);

/**
 * Checks the chain served at PAYPAL-CERT-URL and returns its leaf (the signing certificate):
 * the leaf is valid now and names one of `names` (subjectAltName dNSName, or the CN without one;
 * no wildcards); a path leads from it through served CA certificates, each valid now and signed by
 * the next, to a trust anchor valid now. Anything else throws WebhookRejected.
 */
export function verifyChain(
  chain: X509Certificate[],
  anchors: TrustAnchors,
  nowMs: number,
  names: readonly string[] = SIGNING_CERT_NAMES,
): X509Certificate {
  const leaf = chain[0];
  if (!leaf) throw new WebhookRejected('no signing certificate');
  if (!validAt(leaf, nowMs)) throw new WebhookRejected('signing certificate is not valid now');
  if (!names.some((n) => leaf.checkHost(n, { wildcards: false, subject: 'default' }) !== undefined)) {
    throw new WebhookRejected(`signing certificate names ${commonName(leaf)}, not ${names.join(' or ')}`);
  }
  const intermediates = chain.slice(1);
  let why = `signing certificate (${commonName(leaf)}, issued by ${leaf.issuer.replace(/\n/g, ', ')}) does not chain to a trusted root`;
  // Depth-first over the served certificates: a cross-signed intermediate may offer several paths.
  const reaches = (c: X509Certificate, used: Set<X509Certificate>): boolean => {
    for (const anchor of anchors.list()) {
      if (!signedBy(c, anchor)) continue;
      if (validAt(anchor, nowMs)) return true;
      why = `trusted root ${commonName(anchor)} is not valid now`;
    }
    for (const next of intermediates) {
      if (used.has(next) || !signedBy(c, next)) continue;
      if (!next.ca) {
        why = `issuer ${commonName(next)} is not a CA certificate`;
        continue;
      }
      if (!validAt(next, nowMs)) {
        why = `intermediate certificate ${commonName(next)} is not valid now (${next.validFrom} – ${next.validTo})`;
        continue;
      }
      if (reaches(next, new Set(used).add(next))) return true;
    }
    return false;
  };
  if (!reaches(leaf, new Set([leaf]))) throw new WebhookRejected(why);
  return leaf;
}

export function verifySignature(leaf: X509Certificate, signed: string, signatureB64: string, authAlgo: string): void {
  if (authAlgo !== 'SHA256withRSA') throw new WebhookRejected(`unsupported PAYPAL-AUTH-ALGO ${authAlgo}`);
  const ok = createVerify('RSA-SHA256').update(signed).verify(leaf.publicKey, Buffer.from(signatureB64, 'base64'));
  if (!ok) throw new WebhookRejected('forged: signature does not verify');
}
