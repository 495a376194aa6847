import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { sameToken } from '../../domain/accounts/sessions.ts';
import { AppError } from '../../errors.ts';
import { readCookies } from './http.ts';
import { PRE_CSRF_COOKIE } from './context.ts';

/**
 * CSRF defence, two layers:
 * 1. a token: signed-in requests carry the session's token (form field `_csrf` or header
 *    `X-CSRF-Token`); the register and sign-in forms use a double-submit cookie instead;
 * 2. the Origin header, when the browser sends one, must be this server's own origin.
 * (The session cookie is also SameSite=Lax, so cross-site POSTs do not carry it at all.)
 */
export function checkOrigin(req: IncomingMessage, baseUrl: string) {
  const origin = req.headers.origin;
  if (!origin) return;
  const own = new Set([new URL(baseUrl).origin, `http://${req.headers.host}`, `https://${req.headers.host}`]);
  if (!own.has(origin))
    throw new AppError('origin_not_allowed', 'The request came from another site (Origin mismatch).');
}

export function checkSessionToken(sent: string | null | undefined, expected: string) {
  if (!sameToken(sent, expected)) throw new AppError('csrf_token_invalid');
}

/** The pre-session token of the register/sign-in forms; a new one when the browser has none. */
export function preSessionToken(req: IncomingMessage): { token: string; fresh: boolean } {
  const have = readCookies(req).get(PRE_CSRF_COOKIE);
  return have && /^[A-Za-z0-9_-]{32}$/.test(have)
    ? { token: have, fresh: false }
    : { token: randomBytes(24).toString('base64url'), fresh: true };
}

export function checkPreSessionToken(req: IncomingMessage, sent: string | null) {
  const have = readCookies(req).get(PRE_CSRF_COOKIE);
  if (!have || !sameToken(sent, have)) throw new AppError('csrf_token_invalid');
}
