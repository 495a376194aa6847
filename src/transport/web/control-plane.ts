import type { IncomingMessage } from 'node:http';
import { AppError } from '../../errors.ts';
import { clientIp } from '../http/client-ip.ts';
import { sendError } from '../http/errors.ts';
import type { Handler } from '../http/server.ts';
import { noteRequest } from '../http/request-notes.ts';
import { readSession } from '../../domain/accounts/sessions.ts';
import { overviewPage } from './overview-page.ts';
import { readCookies, readForm, redirect, securityHeaders } from './http.ts';
import { html, page } from './html.ts';
import { SESSION_COOKIE, type SignedIn, type WebDeps, type WebRequest } from './context.ts';
import { checkOrigin, checkSessionToken } from './csrf.ts';
import { confirmPage, registerPage, signInPage, signOut } from './auth-pages.ts';
import { keysPage, revokePage } from './keys-page.ts';
import { subscriptionPage } from './subscription-page.ts';
import { usagePage } from './usage-page.ts';
import { modelPage } from './model-page.ts';
import { ModelReportRuns } from '../../domain/quality/model-report-runs.ts';
import { modelReport } from '../../domain/quality/model-report.ts';
import { reportPage } from './report-page.ts';
import { auditDownload, expireRulePage, overridesPage } from './overrides-page.ts';
import { deleteWatchPage, watchesPage } from './watches-page.ts';
import { editWebhookPage, webhookActionPage, webhooksPage } from './webhooks-page.ts';
import { deliveriesPage, resendPage } from './deliveries-page.ts';
import { APP_JS } from './assets.ts';
import { createWorkspaceGraphql, WORKSPACE_GRAPHQL_PATH } from './graphql/server.ts';

/**
 * The web workspace control plane (API mode) under /workspace/. Sessions only: a request
 * carrying an API key is refused, and the session cookie (Path=/workspace) never reaches the API.
 * Refusals are pages, rendered from the error table by the one error renderer.
 */
export function createControlPlane(deps: WebDeps): Handler {
  const graphql = createWorkspaceGraphql(deps);
  const models = new ModelReportRuns(
    (workspaceId) => modelReport(deps.services.prisma, deps.services.network, { workspaceId }),
    (workspaceId, e) => deps.log.warn('model report for the Model page failed', { workspaceId, err: e }),
  );
  return async (req, res, path, requestId) => {
    const web: WebRequest = {
      req,
      res,
      path,
      requestId,
      method: req.method ?? 'GET',
      query: new URL(req.url ?? '/', 'http://x').searchParams,
      ip: clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], deps.proxies),
      session: null,
    };
    // The session GraphQL answers JSON, never HTML pages: it does its own session, API-key and CSRF checks.
    if (path === WORKSPACE_GRAPHQL_PATH || path === `${WORKSPACE_GRAPHQL_PATH}/`) return graphql(web);
    try {
      await route(deps, web, models);
    } catch (e) {
      const chrome = web.session ? { email: web.session.account.email, csrf: web.session.csrfToken } : null;
      const errorPage = (error: AppError) =>
        page(
          'Something is not right',
          chrome,
          html`<p class="notice error" role="alert">${error.message}</p><p><a href="javascript:history.back()">Back</a></p>`,
        );
      sendError(res, e, requestId, deps.log, { html: errorPage }, securityHeaders);
    }
  };
}

function usesApiKey(req: IncomingMessage): boolean {
  return Boolean(req.headers['x-api-key']) || /^bearer\s/i.test(req.headers.authorization ?? '');
}

async function route(deps: WebDeps, web: WebRequest, models: ModelReportRuns) {
  const { path, method } = web;
  if (usesApiKey(web.req)) throw new AppError('api_key_not_accepted');
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
    throw new AppError('method_not_allowed', 'Only GET and POST are served here.', undefined, undefined, {
      allow: 'GET, HEAD, POST',
    });
  }
  if (path === '/workspace/assets/app.js') {
    web.res.writeHead(200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'max-age=300',
      'x-content-type-options': 'nosniff',
    });
    return void web.res.end(APP_JS);
  }
  web.session = await readSession(deps.services.prisma, readCookies(web.req).get(SESSION_COOKIE));
  if (web.session) noteRequest(web.req, { workspaceId: web.session.account.workspaceId });
  if (path === '/workspace/register') return registerPage(deps, web);
  if (path === '/workspace/confirm') return confirmPage(deps, web);
  if (path === '/workspace/sign-in')
    return web.session && method === 'GET' ? redirect(web.res, '/workspace/') : signInPage(deps, web);
  if (!web.session) {
    if (method === 'GET') return redirect(web.res, '/workspace/sign-in');
    throw new AppError('unauthenticated', 'Sign in first: this page needs a signed-in session.');
  }
  const signedIn = web as SignedIn;
  if (method === 'POST') {
    checkOrigin(web.req, deps.config.baseUrl);
    checkSessionToken((await readForm(web.req)).get('_csrf'), signedIn.session.csrfToken);
  }
  if (path === '/workspace' || path === '/workspace/') return overviewPage(deps, signedIn);
  if (path === '/workspace/sign-out' && method === 'POST') return signOut(deps, signedIn);
  if (path === '/workspace/keys') return keysPage(deps, signedIn);
  const revoke = /^\/workspace\/keys\/([A-Za-z0-9_]{1,40})\/revoke$/.exec(path);
  if (revoke) return revokePage(deps, signedIn, revoke[1]!);
  if (path === '/workspace/subscription')
    return subscriptionPage(deps, signedIn, method === 'POST' ? 'request' : 'show');
  if (path === '/workspace/subscription/resend' && method === 'POST') return subscriptionPage(deps, signedIn, 'resend');
  if (path === '/workspace/subscription/confirm-email' && method === 'POST')
    return subscriptionPage(deps, signedIn, 'confirm-email');
  if (path === '/workspace/usage') return usagePage(deps, signedIn);
  if (path === '/workspace/model' && method !== 'POST') return modelPage(models, signedIn);
  if (path === '/workspace/overrides') return overridesPage(deps, signedIn);
  if (path === '/workspace/overrides/expire' && method === 'POST') return expireRulePage(deps, signedIn);
  if (path === '/workspace/overrides/audit.ndjson' && method === 'GET') return auditDownload(deps, signedIn);
  if (path === '/workspace/watches') return watchesPage(deps, signedIn);
  if (path === '/workspace/watches/delete' && method === 'POST') return deleteWatchPage(deps, signedIn);
  if (path === '/workspace/webhooks') return webhooksPage(deps, signedIn);
  if (path === '/workspace/webhooks/edit' && method !== 'HEAD') return editWebhookPage(deps, signedIn);
  if (path === '/workspace/webhooks/deliveries' && method !== 'POST') return deliveriesPage(deps, signedIn);
  if (path === '/workspace/webhooks/deliveries/resend' && method === 'POST') return resendPage(deps, signedIn);
  const hookAction = /^\/workspace\/webhooks\/(test|rotate|disable|enable|delete)$/.exec(path);
  if (hookAction && method === 'POST') return webhookActionPage(deps, signedIn, hookAction[1]!);
  const report = /^\/workspace\/reports\/([a-z]+)\/([^/]+)$/.exec(path);
  if (report && method !== 'HEAD') return reportPage(deps, signedIn, report[1]!, report[2]!);
  throw new AppError('not_found', `Nothing at ${path}.`);
}
