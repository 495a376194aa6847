import type { Watch } from '../../generated/prisma/client.ts';
import { WATCH_LIMITS } from '../../domain/watches/schemas.ts';
import { WATCHABLE_SUBJECT_KINDS } from '../../domain/watches/target.ts';
import { countWatches } from '../../domain/watches/reads.ts';
import { type AppError, isAppError } from '../../errors.ts';
import { html, page, csrfField, when, type Html } from './html.ts';
import { readForm, redirect, sendHtml } from './http.ts';
import type { SignedIn, WebDeps } from './context.ts';
import { createWatchFor, deleteWatchFor, listWatchesFor } from './watch-actions.ts';

/**
 * Watches: the workspace's watches with the state detection last recorded (each with a delete button), and the
 * form that creates one. Every change goes through watch-actions.ts, as /workspace/graphql's do. A refused form
 * is shown again with what was typed and each field's problem; nothing is changed.
 */
export const WATCHES_PATH = '/workspace/watches';

type Typed = Record<'target' | 'subject_kind' | 'subject_key' | 'score_threshold' | 'note', string>;
type Refusal = { status: number; code: string; message: string; fields: Map<string, string> };

/** The schema's field paths as the form names its inputs. */
const FORM_FIELDS: Record<string, string> = {
  scoreThreshold: 'score_threshold',
  subject: 'subject_kind',
  'subject.kind': 'subject_kind',
  'subject.key': 'subject_key',
};

function refusalOf(e: AppError): Refusal {
  const fields = new Map<string, string>();
  for (const d of e.details ?? []) {
    const name = FORM_FIELDS[d.field] ?? d.field;
    fields.set(name, fields.has(name) ? `${fields.get(name)}; ${d.message}` : d.message);
  }
  return { status: e.status, code: e.code, message: e.message, fields };
}

const fieldError = (r: Refusal | null, name: string) => {
  const message = r?.fields.get(name);
  return message
    ? html` <span class="field-error" id="${name}-error" data-field="${name}">${name} ${message}</span>`
    : '';
};
const invalid = (r: Refusal | null, name: string) =>
  r?.fields.has(name) ? html` aria-invalid="true" aria-describedby="${name}-error"` : '';

function createForm(csrf: string, typed: Typed, r: Refusal | null): Html {
  return html`<form method="post" action="${WATCHES_PATH}" id="create-watch">${csrfField(csrf)}
<label>Target (IP, CIDR block or AS) <input type="text" name="target" value="${typed.target}" maxlength="100" placeholder="203.0.113.7, 203.0.113.0/24 or AS64500"${invalid(r, 'target')}>${fieldError(r, 'target')}</label>
<p>or a report subject:</p>
<label>Subject kind <select name="subject_kind"${invalid(r, 'subject_kind')}><option value="">—</option>${WATCHABLE_SUBJECT_KINDS.map((k) => html`<option value="${k}"${typed.subject_kind === k ? html` selected` : ''}>${k}</option>`)}</select>${fieldError(r, 'subject_kind')}</label>
<label>Subject key <input type="text" name="subject_key" value="${typed.subject_key}" maxlength="2048" placeholder="shop.example, fraud@example.com"${invalid(r, 'subject_key')}>${fieldError(r, 'subject_key')}</label>
<label>Score threshold (1 to 100; empty: level changes only) <input type="number" name="score_threshold" value="${typed.score_threshold}" min="1" max="100"${invalid(r, 'score_threshold')}>${fieldError(r, 'score_threshold')}</label>
<label>Note (internal, carried in each event) <input type="text" name="note" value="${typed.note}" maxlength="${WATCH_LIMITS.note}"${invalid(r, 'note')}>${fieldError(r, 'note')}</label>
${fieldError(r, 'body')}
<button type="submit">Create watch</button></form>`;
}

const shown = (v: unknown) => (v === null || v === '' ? '—' : String(v));

function watchesTable(csrf: string, watches: Watch[]): Html {
  if (watches.length === 0) return html`<p id="no-watches">No watches yet.</p>`;
  const rows = watches.map(
    (
      w,
    ) => html`<tr data-watch="${w.id}"><td>${w.id}</td><td><code>${w.target}</code> (${w.targetKind})</td><td>${shown(w.scoreThreshold)}</td>
<td>${w.lastScore === null ? '—' : `${w.lastScore} (${w.lastLevel}), publication ${w.lastPublicationVersion}`}</td><td>${w.lastSpiking ? 'spiking' : '—'}</td>
<td>${w.note}</td><td>${w.authorLabel} (${w.authorKind})</td><td>${when(w.createdAt)}</td>
<td><form method="post" action="${WATCHES_PATH}/delete">${csrfField(csrf)}<input type="hidden" name="id" value="${w.id}"><button type="submit">Delete</button></form></td></tr>`,
  );
  return html`<div class="scroll"><table id="watches"><thead><tr><th>Id</th><th>Target</th><th>Threshold</th><th>Last score</th><th>Community</th><th>Note</th><th>Author</th><th>Created</th><th></th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

const DONE: Record<string, string> = { created: 'created', deleted: 'deleted' };

async function render(deps: WebDeps, w: SignedIn, status: number, typed: Typed, refusal: Refusal | null) {
  const a = w.session.account;
  const csrf = w.session.csrfToken;
  // The cursor from the address bar: checked by the same schema as every other surface's (invalid_request otherwise).
  const watches = await listWatchesFor(deps, a, {
    limit: WATCH_LIMITS.listPage,
    cursor: w.query.get('after') ?? undefined,
  });
  const total = await countWatches(deps.services.prisma, a.workspaceId);
  const done = Object.keys(DONE).find((k) => /^\d{1,10}$/.test(w.query.get(k) ?? ''));
  const body = html`${done ? html`<p class="notice ok" role="status" id="done">Watch ${w.query.get(done)} ${DONE[done]}.</p>` : ''}
${refusal ? html`<p class="notice error" role="alert" id="refused" data-code="${refusal.code}"><strong>${refusal.code}</strong>: ${refusal.message} Nothing was changed.</p>` : ''}
<p>A watch sends events to the workspace's webhook endpoints: when a new publication moves the target's score across the threshold or changes its level,
when its community signal starts spiking, and when another workspace's community-visible report names it. The first publication a watch sees only records its state.</p>
<p id="watch-count">${total.toLocaleString('en')} of ${WATCH_LIMITS.perWorkspace.toLocaleString('en')} watches.</p>
<h2>Create a watch</h2>
${createForm(csrf, typed, refusal)}
<h2>Watches</h2>
${watchesTable(csrf, watches.items)}
${watches.nextCursor ? html`<p><a href="${WATCHES_PATH}?after=${watches.nextCursor}">More watches</a></p>` : ''}`;
  sendHtml(w.res, status, page('Watches', { email: a.email, csrf }, body));
}

const EMPTY: Typed = { target: '', subject_kind: '', subject_key: '', score_threshold: '', note: '' };

/** GET: the page; POST: create a watch from the form (303 back to the page, or the form again with its problems). */
export async function watchesPage(deps: WebDeps, w: SignedIn) {
  if (w.method !== 'POST') return render(deps, w, 200, EMPTY, null);
  const f = await readForm(w.req);
  const typed = Object.fromEntries(Object.keys(EMPTY).map((k) => [k, f.get(k) ?? ''])) as Typed;
  const threshold = typed.score_threshold.trim();
  try {
    const watch = await createWatchFor(deps, w.session.account, {
      // the fields left empty are "not given": the schema then names what is missing
      target: typed.target.trim() === '' ? undefined : typed.target,
      subject:
        typed.subject_kind === '' && typed.subject_key.trim() === ''
          ? undefined
          : { kind: typed.subject_kind, key: typed.subject_key },
      // a number the schema checks; anything else is passed as typed, so the schema names the problem
      scoreThreshold: threshold === '' ? undefined : /^[+-]?\d{1,4}$/.test(threshold) ? Number(threshold) : threshold,
      note: typed.note,
    });
    redirect(w.res, `${WATCHES_PATH}?created=${watch.id}`);
  } catch (e) {
    if (!isAppError(e) || !['invalid_request', 'watch_exists', 'watch_limit_reached'].includes(e.code)) throw e;
    await render(deps, w, e.status, typed, refusalOf(e));
  }
}

/** POST /workspace/watches/delete: the watch named by the form's id (not_found for another workspace's). */
export async function deleteWatchPage(deps: WebDeps, w: SignedIn) {
  const id = (await readForm(w.req)).get('id') ?? '';
  const watch = await deleteWatchFor(deps, w.session.account, /^\d{1,10}$/.test(id) ? Number(id) : id);
  redirect(w.res, `${WATCHES_PATH}?deleted=${watch.id}`);
}
