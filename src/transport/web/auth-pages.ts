import type { ServerResponse } from 'node:http';
import { html, page, csrfField, type Html } from './html.ts';
import { cookie, readForm, redirect, sendHtml } from './http.ts';
import { checkOrigin, checkPreSessionToken, preSessionToken } from './csrf.ts';
import { PRE_CSRF_COOKIE, SESSION_COOKIE, secureCookies, type WebDeps, type WebRequest } from './context.ts';
import { checkCredentials, normalizeEmail, PASSWORD_MIN } from '../../domain/accounts/accounts.ts';
import { confirmAddress, register } from '../../domain/accounts/registration.ts';
import { CONFIRMATION_TTL_MS, findConfirmation } from '../../domain/accounts/email-confirmation.ts';
import { createSession, destroySession } from '../../domain/accounts/sessions.ts';
import { admitSignIn, type SignInScope } from '../../domain/accounts/sign-in-limit.ts';
import { inWords } from '../../domain/throttle.ts';
import { isAppError } from '../../errors.ts';
import { accountDeps } from './workspace-actions.ts';
import { readCookies } from './http.ts';

/** Register (answered the same for known and new addresses), confirm an e-mailed link, sign in, sign out. */

type Kind = 'register' | 'sign-in';
type Shown = {
  status?: number;
  email?: string;
  error?: string | null;
  notice?: string | null;
  headers?: Record<string, string>;
};

function form(kind: Kind, csrf: string, s: Shown): Html {
  const register = kind === 'register';
  return html`${s.notice ? html`<p class="notice ok" role="status">${s.notice}</p>` : ''}${s.error ? html`<p class="notice error" role="alert">${s.error}</p>` : ''}
<form method="post" action="/workspace/${kind}">${csrfField(csrf)}
<label>E-mail <input type="email" name="email" value="${s.email ?? ''}" required autocomplete="email"></label>
<label>Password <input type="password" name="password" required ${register ? html`minlength="${PASSWORD_MIN}" autocomplete="new-password"` : html`autocomplete="current-password"`}></label>
<button type="submit">${register ? 'Create account' : 'Sign in'}</button></form>
<p>${register ? html`Have an account? <a href="/workspace/sign-in">Sign in</a>.` : html`No account yet? <a href="/workspace/register">Register</a> — API keys and subscriptions are managed here.`}</p>`;
}

/** A pre-session page (no account yet): its forms carry the double-submit token, set here when the browser has none. */
function showPublic(
  deps: WebDeps,
  w: WebRequest,
  title: string,
  status: number,
  body: (csrf: string) => Html,
  extra: Record<string, string> = {},
) {
  const pre = preSessionToken(w.req);
  const headers: Record<string, string | string[]> = { ...extra };
  if (pre.fresh)
    headers['set-cookie'] = cookie(PRE_CSRF_COOKIE, pre.token, { maxAgeS: 86_400, secure: secureCookies(deps.config) });
  sendHtml(w.res, status, page(title, null, body(pre.token)), headers);
}

function show(deps: WebDeps, w: WebRequest, kind: Kind, s: Shown = {}) {
  showPublic(
    deps,
    w,
    kind === 'register' ? 'Create an account' : 'Sign in',
    s.status ?? 200,
    (csrf) => form(kind, csrf, s),
    s.headers,
  );
}

async function startSession(deps: WebDeps, res: ServerResponse, accountId: number, to = '/workspace/keys') {
  const s = await createSession(deps.services.prisma, accountId, deps.config.sessionTtlMs);
  redirect(res, to, {
    'set-cookie': cookie(SESSION_COOKIE, s.token, {
      maxAgeS: Math.floor(deps.config.sessionTtlMs / 1000),
      secure: secureCookies(deps.config),
    }),
  });
}

async function readPublicForm(deps: WebDeps, w: WebRequest) {
  checkOrigin(w.req, deps.config.baseUrl);
  const f = await readForm(w.req);
  checkPreSessionToken(w.req, f.get('_csrf'));
  return f;
}

/** The answer to a well-formed registration: identical whether or not the address has an account. */
const checkInbox = (
  email: string,
) => html`<p class="notice ok" role="status" id="check-inbox">We sent a message to <strong>${email}</strong>.
Open the link in it within ${inWords(CONFIRMATION_TTL_MS / 1000)} to finish. If the address already has an account, the message says so instead.</p>
<p>Nothing arrived? Check the spam folder, or register again in a minute to have it sent again.</p>`;

export async function registerPage(deps: WebDeps, w: WebRequest) {
  if (w.method !== 'POST') return show(deps, w, 'register');
  const f = await readPublicForm(deps, w);
  const email = f.get('email') ?? '';
  try {
    const result = await register(accountDeps(deps), email, f.get('password') ?? '', w.ip);
    if (!result.ok) return show(deps, w, 'register', { status: 400, email, error: result.message });
    sendHtml(w.res, 200, page('Check your inbox', null, checkInbox(result.email)));
  } catch (e) {
    if (!isAppError(e) || e.code !== 'rate_limited') throw e;
    show(deps, w, 'register', { status: 429, email, error: e.message, headers: e.headers ?? {} });
  }
}

/**
 * The e-mailed link. GET only shows the form (a mail scanner fetching the link uses nothing); its POST,
 * from this site with the form's token, takes the account's password with the link (registration.ts:
 * confirmAddress) and signs the account in.
 */
export async function confirmPage(deps: WebDeps, w: WebRequest) {
  const post = w.method === 'POST';
  const f = post ? await readPublicForm(deps, w) : null;
  const token = (post ? f!.get('token') : w.query.get('token')) ?? '';
  const link = await findConfirmation(deps.services.prisma, token);
  if (!link) return linkDoesNotWork(deps, w);
  const confirmForm = (s: Shown) =>
    showPublic(
      deps,
      w,
      'Confirm your e-mail address',
      s.status ?? 200,
      (csrf) => html`${s.error ? html`<p class="notice error" role="alert">${s.error}</p>` : ''}
<form method="post" action="/workspace/confirm">${csrfField(csrf)}<input type="hidden" name="token" value="${token}">
<p>Confirm <strong>${link.email}</strong> with ${link.passwordHash ? 'the password you chose when you registered' : "your account's password"}.</p>
<label>Password <input type="password" name="password" required autocomplete="current-password"></label>
<button type="submit" id="confirm">Confirm</button></form>`,
      s.headers,
    );
  if (!post) return confirmForm({});
  let done;
  try {
    done = await confirmAddress(accountDeps(deps), token, f!.get('password') ?? '', w.ip);
  } catch (e) {
    if (!isAppError(e) || e.code !== 'rate_limited') throw e;
    return confirmForm({ status: 429, error: e.message, headers: e.headers ?? {} });
  }
  if (done.outcome === 'wrong_password')
    deps.log.audit('sign-in failed', {
      via: 'confirmation link',
      email: link.email,
      clientIp: w.ip,
      reason: 'wrong password',
    });
  else deps.log.info('confirmation link used', { outcome: done.outcome });
  if (done.outcome === 'created' || done.outcome === 'confirmed')
    return startSession(
      deps,
      w.res,
      done.accountId,
      done.outcome === 'created' ? '/workspace/keys' : '/workspace/subscription',
    );
  if (done.outcome === 'wrong_password') {
    const why = link.passwordHash
      ? " If you did not register with this link, it is someone else's: register again to get your own."
      : '';
    return confirmForm({ status: 401, error: `That is not the password for this link.${why}` });
  }
  if (done.outcome === 'exists')
    return show(deps, w, 'sign-in', { notice: 'This address already has an account. Sign in with its password.' });
  linkDoesNotWork(deps, w);
}

function linkDoesNotWork(deps: WebDeps, w: WebRequest) {
  showPublic(
    deps,
    w,
    'This link does not work',
    400,
    () => html`<p class="notice error" role="alert">This link is unknown, was used already, or has expired
(a link lasts ${inWords(CONFIRMATION_TTL_MS / 1000)}).</p>
<p><a href="/workspace/register">Register again</a> to get a new link, or <a href="/workspace/sign-in">sign in</a>.</p>`,
  );
}

const TOO_MANY: Record<SignInScope, string> = {
  ip: 'Too many sign-in attempts from your network address.',
  account_ip: 'Too many sign-in attempts for this account from your network address.',
  account: 'Too many sign-in attempts for this account from many network addresses; signing in to it is paused.',
};

export async function signInPage(deps: WebDeps, w: WebRequest) {
  if (w.method !== 'POST') return show(deps, w, 'sign-in');
  const f = await readPublicForm(deps, w);
  const email = normalizeEmail(f.get('email') ?? '');
  const verdict = await admitSignIn(deps.services.counters, email, w.ip);
  if (!verdict.allowed) {
    deps.log.audit('sign-in refused', {
      email: logged(email),
      clientIp: w.ip,
      reason: 'too many attempts',
      scope: verdict.scope,
    });
    return show(deps, w, 'sign-in', {
      status: 429,
      email,
      error: `${TOO_MANY[verdict.scope]} Try again in ${inWords(verdict.retryAfterS)}.`,
      headers: { 'retry-after': String(verdict.retryAfterS) },
    });
  }
  const account = await checkCredentials(deps.services.prisma, email, f.get('password') ?? '');
  if (!account) {
    deps.log.audit('sign-in failed', {
      email: logged(email),
      clientIp: w.ip,
      reason: 'wrong e-mail address or password',
    });
    return show(deps, w, 'sign-in', { status: 401, email, error: 'The e-mail address or password is wrong.' });
  }
  deps.log.audit('signed in', { accountId: account.id, clientIp: w.ip });
  await startSession(deps, w.res, account.id, '/workspace/');
}

/** The address a sign-in attempt named, as the log shows it: whatever was typed, bounded. */
const logged = (email: string) => (email.length > 254 ? `${email.slice(0, 254)}…` : email);

/** Sign-out is a POST with the session's CSRF token (checked by the router); the row is deleted. */
export async function signOut(deps: WebDeps, w: WebRequest) {
  await destroySession(deps.services.prisma, readCookies(w.req).get(SESSION_COOKIE));
  redirect(w.res, '/workspace/sign-in', {
    'set-cookie': cookie(SESSION_COOKIE, '', { maxAgeS: 0, secure: secureCookies(deps.config) }),
  });
}
