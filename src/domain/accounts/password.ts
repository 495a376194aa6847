import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { WorkSlots } from './work-slots.ts';

/**
 * Password hashing with scrypt (node:crypto) at N=2^17, r=8, p=1, the minimum OWASP's Password Storage
 * cheat sheet gives for scrypt. Stored as `scrypt$N$r$p$salt$hash` (base64url), so a hash made under
 * weaker parameters (N=2^14 before) still verifies, and verifyPassword hands back its replacement for the
 * caller to store at the owner's next successful sign-in.
 *
 * One derivation needs 128·N·r bytes (128 MiB) on libuv's thread pool, which also serves file and DNS work:
 * at most HASH_SLOTS run at once (256 MiB), at most HASH_QUEUE wait; more are refused with 503.
 */
export const COST = { N: 2 ** 17, r: 8, p: 1 };
const KEY_LEN = 32;
const HASH_SLOTS = 2;
const HASH_QUEUE = 64;
/** Parameters read from storage are believed up to here (1 GiB); a row beyond it is treated as no password. */
const MAX_N = 2 ** 20;

const slots = new WorkSlots(
  HASH_SLOTS,
  HASH_QUEUE,
  'Too many sign-ins are being checked at this moment; try again in a few seconds.',
);

function derive(password: string, salt: Buffer, c: Required<Pick<ScryptOptions, 'N' | 'r' | 'p'>>): Promise<Buffer> {
  // OpenSSL needs 128·r·(N + 2) bytes for its work area plus 128·r·p for its input blocks.
  const maxmem = 128 * c.r * (c.N + 2 + c.p);
  return slots.run(
    () =>
      new Promise((resolve, reject) => {
        scrypt(password.normalize('NFC'), salt, KEY_LEN, { ...c, maxmem }, (e, key) => (e ? reject(e) : resolve(key)));
      }),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

type Stored = { N: number; r: number; p: number; salt: Buffer; hash: Buffer };

function parse(stored: string | null): Stored | null {
  const parts = (stored ?? '').split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const powerOfTwo = Number.isSafeInteger(N) && N >= 2 && N <= MAX_N && (N & (N - 1)) === 0;
  if (!powerOfTwo || !Number.isSafeInteger(r) || r < 1 || r > 32 || !Number.isSafeInteger(p) || p < 1 || p > 16)
    return null;
  return { N, r, p, salt: Buffer.from(parts[4]!, 'base64url'), hash: Buffer.from(parts[5]!, 'base64url') };
}

/** `rehash`: the password hashed at today's cost, when it matched a hash made under weaker parameters. */
export type PasswordCheck = { ok: boolean; rehash: string | null };

export async function verifyPassword(password: string, stored: string | null): Promise<PasswordCheck> {
  const s = parse(stored);
  if (!s) {
    await derive(password, randomBytes(16), COST); // same cost as a real check: no timing hint that the account lacks a password
    return { ok: false, rehash: null };
  }
  const actual = await derive(password, s.salt, s);
  const ok = actual.length === s.hash.length && timingSafeEqual(actual, s.hash);
  if (s.N === COST.N && s.r === COST.r && s.p === COST.p) return { ok, rehash: null };
  // A weaker hash: its replacement is computed whether or not the password matched, so refusing such an
  // account takes at least as long as refusing a current or an unknown one (no timing tell of which it is).
  const fresh = await hashPassword(password);
  return { ok, rehash: ok ? fresh : null };
}
