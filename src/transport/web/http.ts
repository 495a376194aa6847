import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../../errors.ts';
import { readBody } from '../http/body.ts';

/** Small HTTP helpers of the control plane: cookies, form bodies, HTML responses. */

export function readCookies(req: IncomingMessage): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const value = decodeCookieValue(part.slice(eq + 1).trim());
    if (value !== null) out.set(part.slice(0, eq).trim(), value);
  }
  return out;
}

/** A malformed escape ("%zz", a cut UTF-8 sequence) is not our cookie: ignored, never a 500 (URIError). */
function decodeCookieValue(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

export type CookieOptions = { maxAgeS: number; secure: boolean; path?: string };

/** HttpOnly and SameSite=Lax always; Secure when the service is served over HTTPS. */
export function cookie(name: string, value: string, o: CookieOptions): string {
  const expires = new Date(Date.now() + o.maxAgeS * 1000).toUTCString();
  return `${name}=${encodeURIComponent(value)}; Path=${o.path ?? '/workspace'}; Max-Age=${o.maxAgeS}; Expires=${expires}; HttpOnly; SameSite=Lax${o.secure ? '; Secure' : ''}`;
}

/** The parsed form, read once per request (the router reads it for the CSRF check; the page reuses it). */
export async function readForm(req: IncomingMessage & { parsedForm?: URLSearchParams }): Promise<URLSearchParams> {
  if (req.parsedForm) return req.parsedForm;
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type))
    throw new AppError('unsupported_media_type', 'Send the form as application/x-www-form-urlencoded.');
  req.parsedForm = new URLSearchParams((await readBody(req, 16 * 1024)).toString('utf8'));
  return req.parsedForm;
}

export const securityHeaders: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; connect-src 'self'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin', // never leak report URLs (they name IPs) to other sites; same-origin keeps a real Origin on our forms
  'cache-control': 'no-store',
};

export function sendHtml(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string | string[]> = {},
) {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...securityHeaders, ...headers });
  res.end(body);
}

export function redirect(res: ServerResponse, location: string, headers: Record<string, string | string[]> = {}) {
  res.writeHead(303, { location, ...securityHeaders, ...headers });
  res.end();
}
