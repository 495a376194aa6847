import { AppError } from '../../errors.ts';
import { html, page, csrfField, when, type Html } from './html.ts';
import { readForm, redirect, sendHtml } from './http.ts';
import type { SignedIn, WebDeps } from './context.ts';
import { KEY_NAME_MAX } from '../../domain/access/keys.ts';
import { createKey, findKey, listKeys, revokeKey } from './workspace-actions.ts';

/**
 * Keys: create (the secret is rendered once, in the response to the POST, and stored nowhere
 * but as a hash — a reload or a later visit cannot show it again), list, revoke with confirmation.
 */
async function render(deps: WebDeps, w: SignedIn, status: number, top: Html | string = '') {
  const a = w.session.account;
  const keys = await listKeys(deps, a);
  const rows = keys.map(
    (
      k,
    ) => html`<tr data-prefix="${k.prefix}"><td>${k.name}</td><td><code>${k.prefix}</code></td><td>${when(new Date(k.created_at))}</td>
<td>${k.last_used_at ? when(new Date(k.last_used_at)) : 'never'}</td><td>${k.status}</td>
<td>${k.status === 'active' ? html`<a href="/workspace/keys/${k.prefix}/revoke">Revoke…</a>` : ''}</td></tr>`,
  );
  const body = html`${top}
<h2>Create a key</h2>
<form method="post" action="/workspace/keys">${csrfField(w.session.csrfToken)}
<label>Name <input type="text" name="name" required maxlength="${KEY_NAME_MAX}" placeholder="fraud pipeline"></label>
<button type="submit">Create key</button></form>
<h2>Keys of workspace ${a.workspaceName}</h2>
${keys.length ? html`<div class="scroll"><table><thead><tr><th>Name</th><th>Prefix</th><th>Created</th><th>Last used</th><th>Status</th><th></th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p>No keys yet.</p>`}
<p>Send a key in <code>X-API-Key</code> or <code>Authorization: Bearer</code> to <code>/risk_api/</code> and <code>/graphql</code>.</p>`;
  sendHtml(w.res, status, page('API keys', { email: a.email, csrf: w.session.csrfToken }, body));
}

export async function keysPage(deps: WebDeps, w: SignedIn) {
  if (w.method !== 'POST') return render(deps, w, 200);
  const f = await readForm(w.req);
  const a = w.session.account;
  const created = await createKey(deps, a, f.get('name') ?? ''); // a bad name: invalid_request, rendered as 400
  const shown = html`<div class="notice warn" id="new-key" role="status"><p><strong>Your new key “${created.key.name}”.</strong>
Copy it now: this is the only time it is shown. After you leave or reload this page it cannot be shown again — only a hash is stored.</p>
<p><code class="secret" id="secret">${created.secret}</code> <button type="button" data-copy="#secret">Copy</button></p></div>`;
  await render(deps, w, 201, shown);
}

export async function revokePage(deps: WebDeps, w: SignedIn, prefix: string) {
  const a = w.session.account;
  const key = await findKey(deps, a, prefix);
  if (!key) throw new AppError('not_found', `No key with prefix ${prefix} in this workspace.`);
  if (w.method === 'POST') {
    await revokeKey(deps, a, prefix);
    return redirect(w.res, '/workspace/keys');
  }
  const body = html`<p>Revoke <strong>${key.name}</strong> (<code>${key.prefix}</code>)? Every call with it is refused from then on. This cannot be undone.</p>
<form method="post" action="/workspace/keys/${key.prefix}/revoke">${csrfField(w.session.csrfToken)}<button type="submit">Revoke key</button> <a href="/workspace/keys">Cancel</a></form>`;
  sendHtml(w.res, 200, page('Revoke key', { email: a.email, csrf: w.session.csrfToken }, body));
}
