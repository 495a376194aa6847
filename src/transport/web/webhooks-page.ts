import type { WebhookEndpoint } from '../../generated/prisma/client.ts';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhooks/event-types.ts';
import { WEBHOOK_LIMITS } from '../../domain/webhooks/schemas.ts';
import type { EndpointWithSecret } from '../../domain/webhooks/endpoints.ts';
import { isAppError, type AppError } from '../../errors.ts';
import { html, page, csrfField, when, type Html } from './html.ts';
import { readForm, redirect, sendHtml } from './http.ts';
import type { SignedIn, WebDeps } from './context.ts';
import {
  createHook,
  deleteHook,
  enableHook,
  hookOf,
  hooksOf,
  rotateHook,
  testHook,
  updateHook,
} from './webhook-actions.ts';
import { DELIVERIES_PATH } from './deliveries-page.ts';

/**
 * Webhooks: the workspace's endpoints (each with test, rotate, disable or enable, delete), and the form that creates
 * one. A signing secret is rendered once, in the answer to the create or rotate POST, never again. A refused form is
 * shown again with what was typed and each field's problem; nothing is changed. Every change goes through
 * webhook-actions.ts, as /workspace/graphql's do.
 */
export const WEBHOOKS_PATH = '/workspace/webhooks';

type Typed = { url: string; description: string; eventTypes: string[] };
type Refusal = { code: string; message: string; fields: Map<string, string> };

/** The schema names the list eventTypes (its items eventTypes[0]...); the form's checkboxes are event_types. */
const formField = (field: string) => (field.startsWith('eventTypes') ? 'event_types' : field);
function refusalOf(e: AppError): Refusal {
  const fields = new Map<string, string>();
  for (const d of e.details ?? []) {
    const name = formField(d.field);
    fields.set(name, fields.has(name) ? `${fields.get(name)}; ${d.message}` : d.message);
  }
  return { code: e.code, message: e.message, fields };
}
const fieldError = (r: Refusal | null, name: string) => {
  const message = r?.fields.get(name);
  return message
    ? html` <span class="field-error" id="${name}-error" data-field="${name}">${name} ${message}</span>`
    : '';
};
const invalid = (r: Refusal | null, name: string) =>
  r?.fields.has(name) ? html` aria-invalid="true" aria-describedby="${name}-error"` : '';

/** The endpoint form: empty to create one, or an endpoint's own values (and its id) to change it. */
function endpointForm(csrf: string, typed: Typed, r: Refusal | null, editing: number | null = null): Html {
  const boxes = WEBHOOK_EVENT_TYPES.map(
    (t) =>
      html`<label><input type="checkbox" name="event_types" value="${t}"${typed.eventTypes.includes(t) ? html` checked` : ''}> <code>${t}</code></label>`,
  );
  return html`<form method="post" action="${editing === null ? WEBHOOKS_PATH : `${WEBHOOKS_PATH}/edit`}" id="${editing === null ? 'create-endpoint' : 'edit-endpoint'}">${csrfField(csrf)}${editing === null ? '' : html`<input type="hidden" name="id" value="${editing}">`}
<label>URL <input type="text" name="url" value="${typed.url}" required maxlength="${WEBHOOK_LIMITS.url}" placeholder="https://hooks.example.com/risk"${invalid(r, 'url')}>${fieldError(r, 'url')}</label>
<fieldset${invalid(r, 'event_types')}><legend>Event types</legend>${boxes}${fieldError(r, 'event_types')}</fieldset>
<label>Description <input type="text" name="description" value="${typed.description}" maxlength="${WEBHOOK_LIMITS.description}"${invalid(r, 'description')}>${fieldError(r, 'description')}</label>
${fieldError(r, 'body')}
<button type="submit">${editing === null ? 'Create endpoint' : 'Save changes'}</button>${editing === null ? '' : html` <a href="${WEBHOOKS_PATH}">Cancel</a>`}</form>`;
}

const action = (csrf: string, path: string, id: number, label: string) =>
  html`<form method="post" action="${WEBHOOKS_PATH}/${path}">${csrfField(csrf)}<input type="hidden" name="id" value="${id}"><button type="submit">${label}</button></form>`;

function endpointsTable(csrf: string, endpoints: WebhookEndpoint[]): Html {
  if (endpoints.length === 0) return html`<p id="no-endpoints">No endpoints yet.</p>`;
  const rows = endpoints.map(
    (
      e,
    ) => html`<tr data-endpoint="${e.id}"><td>${e.id}</td><td><code>${e.url}</code>${e.description ? html`<br>${e.description}` : ''}</td>
<td>${e.eventTypes.map((t) => html`<code>${t}</code> `)}</td>
<td data-status="${e.status}">${e.status}${e.disabledReason ? html`<br><small>${e.disabledReason}</small>` : ''}${e.failingSince ? html`<br><small>failing since ${when(e.failingSince)}</small>` : ''}</td>
<td><a href="${DELIVERIES_PATH}?endpoint=${e.id}">Deliveries</a> <a href="${WEBHOOKS_PATH}/edit?id=${e.id}">Edit</a></td>
<td>${action(csrf, 'test', e.id, 'Send test event')}${action(csrf, 'rotate', e.id, 'Rotate secret')}
${e.status === 'enabled' ? action(csrf, 'disable', e.id, 'Disable') : action(csrf, 'enable', e.id, 'Enable')}${action(csrf, 'delete', e.id, 'Delete')}</td></tr>`,
  );
  return html`<div class="scroll"><table id="endpoints"><thead><tr><th>Id</th><th>URL</th><th>Events</th><th>Status</th><th></th><th></th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

const secretNotice = (
  what: string,
  s: EndpointWithSecret,
) => html`<div class="notice warn" id="new-secret" role="status" data-endpoint="${s.endpoint.id}">
<p><strong>${what}</strong> Copy the signing secret now: this is the only time it is shown.</p>
<p><code class="secret" id="secret">${s.secret}</code> <button type="button" data-copy="#secret">Copy</button></p>
<p>Verify each delivery's <code>Risk-Signature</code> header with it (see “Verifying a delivery” in docs/webhooks.md).</p></div>`;

const DONE: Record<string, string> = {
  disabled: 'disabled',
  enabled: 'enabled',
  deleted: 'deleted',
  updated: 'updated',
};

async function render(
  deps: WebDeps,
  w: SignedIn,
  status: number,
  typed: Typed,
  refusal: Refusal | null,
  top: Html | string = '',
) {
  const a = w.session.account;
  const csrf = w.session.csrfToken;
  const list = await hooksOf(deps, a, { limit: WEBHOOK_LIMITS.listPage, cursor: w.query.get('after') ?? undefined });
  const done = Object.keys(DONE).find((k) => /^\d{1,10}$/.test(w.query.get(k) ?? ''));
  const body = html`${top}${done ? html`<p class="notice ok" role="status" id="done">Endpoint ${w.query.get(done)} ${DONE[done]}.</p>` : ''}
${refusal ? html`<p class="notice error" role="alert" id="refused" data-code="${refusal.code}"><strong>${refusal.code}</strong>: ${refusal.message} Nothing was changed.</p>` : ''}
<p>Events of this workspace are POSTed to each enabled endpoint that asks for their type, signed with its secret, retried for up to 3 days,
in order per endpoint. An endpoint failing for 3 days is disabled and this workspace's accounts are e-mailed. At most ${WEBHOOK_LIMITS.endpoints} endpoints.
<a href="${DELIVERIES_PATH}">All deliveries</a></p>
<h2>Create an endpoint</h2>
${endpointForm(csrf, typed, refusal)}
<h2>Endpoints</h2>
${endpointsTable(csrf, list.items)}
${list.nextCursor ? html`<p><a href="${WEBHOOKS_PATH}?after=${list.nextCursor}">More endpoints</a></p>` : ''}`;
  sendHtml(w.res, status, page('Webhooks', { email: a.email, csrf }, body));
}

const EMPTY: Typed = { url: '', description: '', eventTypes: [] };

/** GET: the page; POST: create an endpoint (201 with its secret, or the form again with its problems). */
export async function webhooksPage(deps: WebDeps, w: SignedIn) {
  if (w.method !== 'POST') return render(deps, w, 200, EMPTY, null);
  const f = await readForm(w.req);
  const typed: Typed = {
    url: f.get('url') ?? '',
    description: f.get('description') ?? '',
    eventTypes: f.getAll('event_types'),
  };
  try {
    const created = await createHook(deps, w.session.account, {
      url: typed.url,
      description: typed.description,
      eventTypes: typed.eventTypes,
    });
    await render(deps, w, 201, EMPTY, null, secretNotice(`Endpoint ${created.endpoint.id} created.`, created));
  } catch (e) {
    if (!isAppError(e) || !['invalid_request', 'webhook_endpoint_limit_reached'].includes(e.code)) throw e;
    await render(deps, w, e.status, typed, refusalOf(e));
  }
}

const formId = async (w: SignedIn) => {
  const id = (await readForm(w.req)).get('id') ?? '';
  return /^\d{1,10}$/.test(id) ? Number(id) : id;
};

/** POST /workspace/webhooks/<action>: the endpoint named by the form's id (not_found for another workspace's). */
export async function webhookActionPage(deps: WebDeps, w: SignedIn, what: string) {
  const a = w.session.account;
  const id = await formId(w);
  if (what === 'rotate') {
    const rotated = await rotateHook(deps, a, id);
    return render(
      deps,
      w,
      200,
      EMPTY,
      null,
      secretNotice(
        `Endpoint ${rotated.endpoint.id} has a new secret; the previous one also signs for 24 hours.`,
        rotated,
      ),
    );
  }
  if (what === 'test') {
    const d = await testHook(deps, a, id);
    return redirect(w.res, `${DELIVERIES_PATH}?endpoint=${d.endpointId}&tested=${d.id}`);
  }
  const e = what === 'delete' ? await deleteHook(deps, a, id) : await enableHook(deps, a, id, what === 'enable');
  redirect(w.res, `${WEBHOOKS_PATH}?${what}d=${e.id}`);
}

/**
 * GET /workspace/webhooks/edit?id=N: the endpoint's form with its URL, event types and description; POST: save them
 * (303 back to the list, or the form again with each field's problem; nothing changed). not_found for another
 * workspace's endpoint.
 */
export async function editWebhookPage(deps: WebDeps, w: SignedIn) {
  const a = w.session.account;
  const csrf = w.session.csrfToken;
  const digits = (v: string) => (/^\d{1,10}$/.test(v) ? Number(v) : v);
  if (w.method !== 'POST') {
    const e = await hookOf(deps, a, digits(w.query.get('id') ?? ''));
    return sendHtml(
      w.res,
      200,
      page(
        `Edit endpoint ${e.id}`,
        { email: a.email, csrf },
        endpointForm(csrf, { url: e.url, description: e.description, eventTypes: e.eventTypes }, null, e.id),
      ),
    );
  }
  const f = await readForm(w.req);
  const id = digits(f.get('id') ?? '');
  const typed: Typed = {
    url: f.get('url') ?? '',
    description: f.get('description') ?? '',
    eventTypes: f.getAll('event_types'),
  };
  try {
    const e = await updateHook(deps, a, {
      id,
      url: typed.url,
      description: typed.description,
      eventTypes: typed.eventTypes,
    });
    redirect(w.res, `${WEBHOOKS_PATH}?updated=${e.id}`);
  } catch (e) {
    if (!isAppError(e) || e.code !== 'invalid_request' || typeof id !== 'number') throw e;
    const r = refusalOf(e);
    sendHtml(
      w.res,
      e.status,
      page(
        `Edit endpoint ${id}`,
        { email: a.email, csrf },
        html`<p class="notice error" role="alert" id="refused" data-code="${r.code}"><strong>${r.code}</strong>: ${r.message} Nothing was changed.</p>
${endpointForm(csrf, typed, r, id)}`,
      ),
    );
  }
}
