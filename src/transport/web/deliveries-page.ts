import type { WebhookAttempt } from '../../generated/prisma/client.ts';
import type { DeliveryView } from '../../domain/webhooks/deliveries.ts';
import { DELIVERY_STATUSES, WEBHOOK_LIMITS } from '../../domain/webhooks/schemas.ts';
import { html, page, csrfField, when, type Html } from './html.ts';
import { readForm, redirect, sendHtml } from './http.ts';
import type { SignedIn, WebDeps } from './context.ts';
import { deliveriesOf, resendHook } from './webhook-actions.ts';

/**
 * Deliveries: the workspace's deliveries, newest first (optionally of one endpoint or one status), each with its
 * attempts (time, HTTP status, latency, error, the first 1 KB of the response) and a re-send button.
 */
export const DELIVERIES_PATH = '/workspace/webhooks/deliveries';
const PAGE = 20;

const digits = (v: string | null) => (v !== null && /^\d{1,10}$/.test(v) ? Number(v) : (v ?? undefined));

function attemptsTable(attempts: WebhookAttempt[]): Html {
  if (attempts.length === 0) return html`<em>No attempt yet.</em>`;
  return html`<table class="attempts"><thead><tr><th>Time</th><th>Status</th><th>Latency</th><th>Error</th><th>Response (first 1 KB)</th><th></th></tr></thead><tbody>${attempts.map(
    (a) => html`<tr data-attempt="${a.id}">
<td>${when(a.startedAt)}</td><td>${a.httpStatus ?? '—'}</td><td>${a.latencyMs} ms</td><td>${a.error ?? ''}</td><td><code>${a.responseExcerpt}</code></td><td>${a.manual ? 'manual' : ''}</td></tr>`,
  )}</tbody></table>`;
}

function deliveriesTable(csrf: string, list: DeliveryView[], back: string): Html {
  if (list.length === 0) return html`<p id="no-deliveries">No deliveries.</p>`;
  return html`<div class="scroll"><table id="deliveries"><thead><tr><th>Id</th><th>Event</th><th>Endpoint</th><th>Status</th><th>Attempts</th><th></th></tr></thead><tbody>${list.map(
    (d) => html`<tr data-delivery="${d.id}">
<td>${d.id}</td><td><code>${d.event.publicId}</code><br>${d.event.type}<br><small>${when(d.createdAt)}</small></td><td>${d.endpointId}: <code>${d.endpoint.url}</code></td>
<td data-status="${d.status}">${d.status}${d.status === 'pending' ? html`<br><small>next ${when(d.nextAttemptAt)}</small>` : ''}${d.deliveredAt ? html`<br><small>${when(d.deliveredAt)}</small>` : ''}</td>
<td>${d.attempts}${attemptsTable(d.attemptsLog)}</td>
<td><form method="post" action="${DELIVERIES_PATH}/resend">${csrfField(csrf)}<input type="hidden" name="id" value="${d.id}"><input type="hidden" name="back" value="${back}"><button type="submit">Re-send</button></form></td></tr>`,
  )}</tbody></table></div>`;
}

export async function deliveriesPage(deps: WebDeps, w: SignedIn) {
  const a = w.session.account;
  const csrf = w.session.csrfToken;
  const endpoint = w.query.get('endpoint');
  const status = w.query.get('status');
  // Filters and cursor from the address bar: checked by the same schema as every other surface's (invalid_request otherwise).
  const list = await deliveriesOf(deps, a, {
    endpointId: digits(endpoint),
    status: status || undefined,
    limit: PAGE,
    cursor: w.query.get('after') ?? undefined,
  });
  const filter = `${endpoint ? `endpoint=${encodeURIComponent(endpoint)}&` : ''}${status ? `status=${encodeURIComponent(status)}&` : ''}`;
  const note = ['tested', 'resent'].find((k) => /^\d{1,10}$/.test(w.query.get(k) ?? ''));
  const body = html`${note ? html`<p class="notice ok" role="status" id="done">Delivery ${w.query.get(note)} ${note === 'tested' ? 'sent as a test event' : 're-sent'}: its attempt is below.</p>` : ''}
<p><a href="/workspace/webhooks">Endpoints</a>. ${endpoint ? html`Endpoint ${endpoint}'s deliveries. <a href="${DELIVERIES_PATH}">All</a>` : 'All endpoints.'}
Status: ${DELIVERY_STATUSES.map((s) => html`<a href="${DELIVERIES_PATH}?${endpoint ? `endpoint=${encodeURIComponent(endpoint)}&` : ''}status=${s}">${s}</a> `)}</p>
<p>Each delivery shows its newest ${WEBHOOK_LIMITS.attemptsShown} attempts. A re-send is one more attempt now, with the same event id.</p>
${deliveriesTable(csrf, list.items, filter)}
${list.nextCursor ? html`<p><a href="${DELIVERIES_PATH}?${filter}after=${list.nextCursor}" id="older">Older deliveries</a></p>` : ''}`;
  sendHtml(w.res, 200, page('Webhook deliveries', { email: a.email, csrf }, body));
}

/** POST /workspace/webhooks/deliveries/resend: one manual attempt now, then back to the list it came from. */
export async function resendPage(deps: WebDeps, w: SignedIn) {
  const f = await readForm(w.req);
  const d = await resendHook(deps, w.session.account, digits(f.get('id')));
  const back = f.get('back') ?? '';
  redirect(w.res, `${DELIVERIES_PATH}?${/^[a-z_=0-9&]*$/.test(back) ? back : ''}resent=${d.id}`);
}
