import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientIp } from '../http/client-ip.ts';
import { readSession } from '../../domain/accounts/sessions.ts';
import { readCookies, redirect, sendHtml } from './http.ts';
import { html, page } from './html.ts';
import { SESSION_COOKIE, type SignedIn, type WebDeps, type WebRequest } from './context.ts';
import { checkOrigin, checkSessionToken } from './csrf.ts';
import { WebError } from './web-error.ts';
import { confirmPage, registerPage, signInPage, signOut } from './auth-pages.ts';
import { keysPage, revokePage } from './keys-page.ts';
import { subscriptionPage } from './subscription-page.ts';
import { usagePage } from './usage-page.ts';
import { reportPage } from './report-page.ts';
import { APP_JS } from './assets.ts';
import { readForm } from './http.ts';
import { isAppError } from '../../errors.ts';
import { errorFields } from '../../platform/log.ts';
import { createWorkspaceGraphql, WORKSPACE_GRAPHQL_PATH } from './graphql/server.ts';

/**
 * The web workspace control plane (API mode) under /workspace/. Sessions only: a request
 * carrying an API key is refused, and the session cookie (Path=/workspace) never reaches the API.
 */
export type ControlPlane = (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void>;

export function createControlPlane(deps: WebDeps): ControlPlane {
  const graphql = createWorkspaceGraphql(deps);
  return async (req, res, path) => {
    const w: WebRequest = {
      req, res, path, method: req.method ?? 'GET', query: new URL(req.url ?? '/', 'http://x').searchParams,
      ip: clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], deps.proxies), session: null,
    };
    // The session GraphQL answers JSON, never HTML pages: it does its own session, API-key and CSRF checks.
    if (path === WORKSPACE_GRAPHQL_PATH || path === `${WORKSPACE_GRAPHQL_PATH}/`) return graphql(w);
    try {
      await route(deps, w);
    } catch (e) {
      const status = e instanceof WebError ? e.status : isAppError(e) ? e.status : 500;
      if (status === 500) deps.log.error('control plane error', { path, ...errorFields(e) });
      const message = status === 500 ? 'Something went wrong on our side; try again.' : (e as Error).message;
      const chrome = w.session ? { email: w.session.account.email, csrf: w.session.csrfToken } : null;
      const headers = e instanceof WebError ? e.headers : isAppError(e) ? e.headers ?? {} : {}; // e.g. Retry-After
      if (!res.headersSent) sendHtml(res, status, page('Something is not right', chrome, html`<p class="notice error" role="alert">${message}</p><p><a href="javascript:history.back()">Back</a></p>`), headers);
    }
  };
}

async function route(deps: WebDeps, w: WebRequest) {
  const { path, method } = w;
  if (w.req.headers['x-api-key'] || /^bearer\s/i.test(w.req.headers.authorization ?? '')) {
    throw new WebError(401, 'The workspace control plane accepts a signed-in session, not API keys. API keys work on /risk_api/ and /graphql.');
  }
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') throw new WebError(405, 'Only GET and POST are served here.');
  if (path === '/workspace/assets/app.js') {
    w.res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'max-age=300', 'x-content-type-options': 'nosniff' });
    return void w.res.end(APP_JS);
  }
  w.session = await readSession(deps.services.prisma, readCookies(w.req).get(SESSION_COOKIE));
  if (path === '/workspace/register') return registerPage(deps, w);
  if (path === '/workspace/confirm') return confirmPage(deps, w);
  if (path === '/workspace/sign-in') return w.session && method === 'GET' ? redirect(w.res, '/workspace/keys') : signInPage(deps, w);
  if (!w.session) {
    if (method === 'GET') return redirect(w.res, '/workspace/sign-in');
    throw new WebError(401, 'Sign in first: this page needs a signed-in session.');
  }
  const s = w as SignedIn;
  if (method === 'POST') {
    checkOrigin(w.req, deps.config.baseUrl);
    checkSessionToken((await readForm(w.req)).get('_csrf'), s.session.csrfToken);
  }
  if (path === '/workspace' || path === '/workspace/') return redirect(w.res, '/workspace/keys');
  if (path === '/workspace/sign-out' && method === 'POST') return signOut(deps, s);
  if (path === '/workspace/keys') return keysPage(deps, s);
  const revoke = /^\/workspace\/keys\/([A-Za-z0-9_]{1,40})\/revoke$/.exec(path);
  if (revoke) return revokePage(deps, s, revoke[1]!);
  if (path === '/workspace/subscription') return subscriptionPage(deps, s, method === 'POST' ? 'request' : 'show');
  if (path === '/workspace/subscription/resend' && method === 'POST') return subscriptionPage(deps, s, 'resend');
  if (path === '/workspace/subscription/confirm-email' && method === 'POST') return subscriptionPage(deps, s, 'confirm-email');
  if (path === '/workspace/usage') return usagePage(deps, s);
  const report = /^\/workspace\/reports\/([a-z]+)\/([^/]+)$/.exec(path);
  if (report && method !== 'HEAD') return reportPage(deps, s, report[1]!, report[2]!);
  throw new WebError(404, `Nothing at ${path}.`);
}
