import type { ServerResponse } from 'node:http';
import { html, page, csrfField, type Html } from './html.ts';
import { cookie, readForm, redirect, sendHtml } from './http.ts';
import { checkOrigin, checkPreSessionToken, preSessionToken } from './csrf.ts';
import { PRE_CSRF_COOKIE, SESSION_COOKIE, secureCookies, type WebDeps, type WebRequest } from './context.ts';
import { checkCredentials, registerAccount, PASSWORD_MIN } from '../domain/accounts/accounts.ts';
import { createSession, destroySession } from '../domain/accounts/sessions.ts';
import { admitSignIn } from '../domain/accounts/sign-in-limit.ts';
import { readCookies } from './http.ts';

/** Register, sign in, sign out. */

function form(kind: 'register' | 'sign-in', csrf: string, email: string, error: string | null): Html {
  const register = kind === 'register';
  return html`${error ? html`<p class="notice error" role="alert">${error}</p>` : ''}
<form method="post" action="/workspace/${kind}">${csrfField(csrf)}
<label>E-mail <input type="email" name="email" value="${email}" required autocomplete="email"></label>
<label>Password <input type="password" name="password" required ${register ? html`minlength="${PASSWORD_MIN}" autocomplete="new-password"` : html`autocomplete="current-password"`}></label>
<button type="submit">${register ? 'Create account' : 'Sign in'}</button></form>
<p>${register ? html`Have an account? <a href="/workspace/sign-in">Sign in</a>.` : html`No account yet? <a href="/workspace/register">Register</a> — API keys and subscriptions are managed here.`}</p>`;
}

function show(deps: WebDeps, w: WebRequest, kind: 'register' | 'sign-in', status: number, email = '', error: string | null = null, extra: Record<string, string> = {}) {
  const pre = preSessionToken(w.req);
  const headers: Record<string, string | string[]> = { ...extra };
  if (pre.fresh) headers['set-cookie'] = cookie(PRE_CSRF_COOKIE, pre.token, { maxAgeS: 86_400, secure: secureCookies(deps.config) });
  sendHtml(w.res, status, page(kind === 'register' ? 'Create an account' : 'Sign in', null, form(kind, pre.token, email, error)), headers);
}

async function startSession(deps: WebDeps, res: ServerResponse, accountId: number) {
  const s = await createSession(deps.services.prisma, accountId, deps.config.sessionTtlMs);
  redirect(res, '/workspace/keys', { 'set-cookie': cookie(SESSION_COOKIE, s.token, { maxAgeS: Math.floor(deps.config.sessionTtlMs / 1000), secure: secureCookies(deps.config) }) });
}

export async function registerPage(deps: WebDeps, w: WebRequest) {
  if (w.method !== 'POST') return show(deps, w, 'register', 200);
  checkOrigin(w.req, deps.config.baseUrl);
  const f = await readForm(w.req);
  checkPreSessionToken(w.req, f.get('_csrf'));
  const email = f.get('email') ?? '';
  const result = await registerAccount(deps.services.prisma, email, f.get('password') ?? '');
  if (!result.ok) return show(deps, w, 'register', 400, email, result.message);
  deps.log.info('account registered', { accountId: result.account.id, workspace: result.account.workspaceName });
  await startSession(deps, w.res, result.account.id);
}

export async function signInPage(deps: WebDeps, w: WebRequest) {
  if (w.method !== 'POST') return show(deps, w, 'sign-in', 200);
  checkOrigin(w.req, deps.config.baseUrl);
  const f = await readForm(w.req);
  checkPreSessionToken(w.req, f.get('_csrf'));
  const email = (f.get('email') ?? '').trim().toLowerCase();
  const verdict = await admitSignIn(deps.services.counters, email, w.ip);
  if (!verdict.allowed) {
    const minutes = Math.ceil(verdict.retryAfterS / 60);
    const who = verdict.scope === 'account' ? 'this account' : 'your network address';
    return show(deps, w, 'sign-in', 429, email, `Too many sign-in attempts for ${who}. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, { 'retry-after': String(verdict.retryAfterS) });
  }
  const account = await checkCredentials(deps.services.prisma, email, f.get('password') ?? '');
  if (!account) return show(deps, w, 'sign-in', 401, email, 'The e-mail address or password is wrong.');
  await startSession(deps, w.res, account.id);
}

/** Sign-out is a POST with the session's CSRF token (checked by the router); the row is deleted. */
export async function signOut(deps: WebDeps, w: WebRequest) {
  await destroySession(deps.services.prisma, readCookies(w.req).get(SESSION_COOKIE));
  redirect(w.res, '/workspace/sign-in', { 'set-cookie': cookie(SESSION_COOKIE, '', { maxAgeS: 0, secure: secureCookies(deps.config) }) });
}
