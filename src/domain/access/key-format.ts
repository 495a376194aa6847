import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API key format: `rk_<8 prefix chars>_<40 secret chars>`, base62. The visible prefix is
 * `rk_<8 chars>` (shown in lists and echoed in score responses); the whole string is the
 * secret. 40 base62 characters carry ~238 bits, so a fast keyed hash (HMAC-SHA-256 with a
 * server-side pepper) is safe to store: there is nothing to brute-force.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const KEY_PATTERN = /^(rk_[A-Za-z0-9]{8})_[A-Za-z0-9]{40}$/;

function base62(length: number): string {
  // Rejection sampling keeps every character uniform (256 is not a multiple of 62).
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function generateApiKey(): { prefix: string; secret: string } {
  const prefix = `rk_${base62(8)}`;
  return { prefix, secret: `${prefix}_${base62(40)}` };
}

/** The prefix of a well-formed key, or null for anything malformed. */
export function keyPrefix(key: string): string | null {
  return KEY_PATTERN.exec(key)?.[1] ?? null;
}

export function hashApiKey(pepper: string, key: string): string {
  return createHmac('sha256', pepper).update(key).digest('hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
