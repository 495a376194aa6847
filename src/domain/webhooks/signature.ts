import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Delivery signatures, as Stripe signs its webhooks (docs/webhooks.md, "Verifying a delivery"):
 *   Risk-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the endpoint's secret>
 * The whole secret string (whsec_...) is the HMAC key, as UTF-8. For 24 h after a rotation there are two v1
 * entries, the new secret's first, so a receiver still holding the old secret keeps verifying.
 */
export const SIGNATURE_HEADER = 'risk-signature';
/** How old a signature's timestamp a receiver accepts by default (replay window), as Stripe's libraries do. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;
/** How long the previous secret keeps signing after a rotation. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3_600_000;

/** A new endpoint secret: whsec_ and 32 random bytes, base64url (43 characters). */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

const hmac = (secret: string, t: number, body: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest('hex');

/** The header value for a body sent at `t` (unix seconds), signed with each secret in turn. */
export function signatureHeader(body: string, t: number, secrets: readonly string[]): string {
  return [`t=${t}`, ...secrets.map((s) => `v1=${hmac(s, t, body)}`)].join(',');
}

export type VerifyResult = { ok: true; timestamp: number } | { ok: false; reason: string };

/**
 * What a receiver does with a delivery: parse the header, recompute the HMAC over the raw body with its secret, compare
 * in constant time against every v1 entry, and refuse a timestamp further than `toleranceSeconds` from its clock.
 * `body` must be the bytes as received (not re-serialized JSON).
 */
export function verifySignature(
  body: string,
  header: string | null | undefined,
  secret: string,
  opts: { toleranceSeconds?: number; nowSeconds?: number } = {},
): VerifyResult {
  if (!header) return { ok: false, reason: 'no Risk-Signature header' };
  let t: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (t === null) return { ok: false, reason: 'no timestamp (t=) in the header' };
  if (signatures.length === 0) return { ok: false, reason: 'no v1 signature in the header' };
  const tolerance = opts.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > tolerance) return { ok: false, reason: `timestamp outside the ${tolerance} s tolerance` };
  const expected = Buffer.from(hmac(secret, t, body), 'hex');
  const matches = signatures.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), expected));
  return matches ? { ok: true, timestamp: t } : { ok: false, reason: 'no signature matches the secret' };
}
