import type { OverrideAudit, OverrideRule } from '../../generated/prisma/client.ts';
import type { ruleRecord } from '../../domain/overrides/changes.ts';
import { OVERRIDE_ACTIONS, OVERRIDE_LIMITS, overrideAuditSchema } from '../../domain/overrides/schemas.ts';
import { type AppError, isAppError, type ErrorDetail } from '../../errors.ts';
import { checkInput } from '../../domain/validation.ts';
import { sendAuditExport } from '../http/override-audit-export.ts';
import { html, page, csrfField, when, type Html } from './html.ts';
import { readForm, redirect, securityHeaders, sendHtml } from './http.ts';
import type { SignedIn, WebDeps } from './context.ts';
import { auditEntries, createRule, expireRule, listRules } from './override-actions.ts';

/**
 * Overrides: the rules in force (each with an expire button), the form that creates one, and the audit trail,
 * newest first, with its NDJSON download. Every change goes through override-actions.ts, as /workspace/graphql's do.
 * A refused form is shown again with what was typed and each field's problem; nothing is changed.
 */
export const OVERRIDES_PATH = '/workspace/overrides';
/** Audit entries per page of the history (the rules list takes GraphQL's largest page). */
const AUDIT_PAGE = 20;

/** The form's "expires in" choices: a fixed list, so the page never reads a free-form duration. */
const EXPIRES_IN: ReadonlyArray<{ code: string; label: string; ms: number | null }> = [
  { code: 'never', label: 'Never (until expired)', ms: null },
  { code: '1h', label: '1 hour', ms: 3_600_000 },
  { code: '1d', label: '1 day', ms: 86_400_000 },
  { code: '7d', label: '7 days', ms: 7 * 86_400_000 },
  { code: '30d', label: '30 days', ms: 30 * 86_400_000 },
  { code: '90d', label: '90 days', ms: 90 * 86_400_000 },
  { code: '365d', label: '1 year', ms: 365 * 86_400_000 },
];

type Typed = Record<'target' | 'action' | 'points' | 'reason' | 'note' | 'expires_in', string>;
type Refusal = { status: number; code: string; message: string; fields: Map<string, string> };

/** The schema names its fields as the domain does; the form calls the expiry "expires_in". */
const formField = (field: string) => (field === 'expiresAt' ? 'expires_in' : field);

function refusalOf(e: AppError): Refusal {
  const fields = new Map<string, string>();
  for (const d of e.details ?? []) {
    const name = formField(d.field);
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
  return html`<form method="post" action="${OVERRIDES_PATH}" id="create-rule">${csrfField(csrf)}
<label>Target <input type="text" name="target" value="${typed.target}" required maxlength="100" placeholder="203.0.113.7, 203.0.113.0/24, AS64500 or NL"${invalid(r, 'target')}>${fieldError(r, 'target')}</label>
<label>Action <select name="action"${invalid(r, 'action')}>${OVERRIDE_ACTIONS.map((a) => html`<option value="${a}"${typed.action === a ? html` selected` : ''}>${a}</option>`)}</select>${fieldError(r, 'action')}</label>
<label>Points (adjust only, -${OVERRIDE_LIMITS.points} to ${OVERRIDE_LIMITS.points}) <input type="number" name="points" value="${typed.points}" min="-${OVERRIDE_LIMITS.points}" max="${OVERRIDE_LIMITS.points}"${invalid(r, 'points')}>${fieldError(r, 'points')}</label>
<label>Reason (shown in every score the rule changes) <input type="text" name="reason" value="${typed.reason}" required maxlength="${OVERRIDE_LIMITS.reason}"${invalid(r, 'reason')}>${fieldError(r, 'reason')}</label>
<label>Note (internal) <input type="text" name="note" value="${typed.note}" maxlength="${OVERRIDE_LIMITS.note}"${invalid(r, 'note')}>${fieldError(r, 'note')}</label>
<label>Expires in <select name="expires_in"${invalid(r, 'expires_in')}>${EXPIRES_IN.map((e) => html`<option value="${e.code}"${typed.expires_in === e.code ? html` selected` : ''}>${e.label}</option>`)}</select>${fieldError(r, 'expires_in')}</label>
${fieldError(r, 'body')}
<button type="submit">Create rule</button></form>`;
}

function rulesTable(csrf: string, rules: OverrideRule[]): Html {
  if (rules.length === 0) return html`<p id="no-rules">No rules in force.</p>`;
  const rows = rules.map(
    (
      r,
    ) => html`<tr data-rule="${r.id}"><td>${r.id}</td><td><code>${r.target}</code> (${r.targetKind})</td><td>${r.action}</td>
<td>${r.action === 'adjust' ? (r.points > 0 ? `+${r.points}` : String(r.points)) : '—'}</td><td>${r.reason}</td><td>${r.note}</td><td>${r.authorLabel} (${r.authorKind})</td>
<td>${r.expiresAt ? when(r.expiresAt) : 'never'}</td>
<td><form method="post" action="${OVERRIDES_PATH}/expire">${csrfField(csrf)}<input type="hidden" name="id" value="${r.id}"><button type="submit">Expire</button></form></td></tr>`,
  );
  return html`<div class="scroll"><table id="rules"><thead><tr><th>Id</th><th>Target</th><th>Action</th><th>Points</th><th>Reason</th><th>Note</th><th>Author</th><th>Expires</th><th></th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

type RuleRecord = ReturnType<typeof ruleRecord>;
const SHOWN: ReadonlyArray<keyof RuleRecord> = ['reason', 'note', 'expires_at', 'expired_at'];
const shown = (v: unknown) => (v === null || v === '' ? '—' : String(v));

/** What an entry did, in words: the rule a create made, or each field an update or expiry changed. */
function changeOf(a: OverrideAudit): string {
  const after = a.after as RuleRecord | null;
  const before = a.before as RuleRecord | null;
  if (!after) return '';
  if (!before) {
    return (
      `${after.target} ${after.action}${after.action === 'adjust' ? ` ${after.points > 0 ? '+' : ''}${after.points}` : ''}: ${after.reason}` +
      (after.expires_at ? ` (until ${after.expires_at})` : '')
    );
  }
  const changed = SHOWN.filter((k) => before[k] !== after[k]).map(
    (k) => `${k}: ${shown(before[k])} → ${shown(after[k])}`,
  );
  return `${after.target}: ${changed.join('; ') || 'no visible change'}`;
}

function auditTable(entries: OverrideAudit[]): Html {
  if (entries.length === 0) return html`<p id="no-audit">No changes yet.</p>`;
  const rows = entries.map(
    (
      a,
    ) => html`<tr data-entry="${a.id}"><td>${when(a.createdAt)}</td><td>${a.ruleId}</td><td>${a.action}</td><td>${a.surface}</td>
<td>${a.actorLabel} (${a.actorKind})</td><td>${changeOf(a)}</td></tr>`,
  );
  return html`<div class="scroll"><table id="audit"><thead><tr><th>When</th><th>Rule</th><th>Change</th><th>From</th><th>By</th><th>What</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

const DONE: Record<string, string> = { created: 'created', expired: 'expired' };

async function render(deps: WebDeps, w: SignedIn, status: number, typed: Typed, refusal: Refusal | null) {
  const a = w.session.account;
  const csrf = w.session.csrfToken;
  // Cursors from the address bar: checked by the same schemas as every other surface's (invalid_request otherwise).
  const rules = await listRules(deps, a, {
    state: 'active',
    limit: OVERRIDE_LIMITS.listPage,
    cursor: w.query.get('rules_after') ?? undefined,
  });
  const audit = await auditEntries(deps, a, {
    limit: AUDIT_PAGE,
    cursor: w.query.get('audit_after') ?? undefined,
    newestFirst: true,
  });
  const done = Object.keys(DONE).find((k) => /^\d{1,10}$/.test(w.query.get(k) ?? ''));
  const body = html`${done ? html`<p class="notice ok" role="status" id="done">Rule ${w.query.get(done)} ${DONE[done]}.</p>` : ''}
${refusal ? html`<p class="notice error" role="alert" id="refused" data-code="${refusal.code}"><strong>${refusal.code}</strong>: ${refusal.message} Nothing was changed.</p>` : ''}
<p>A rule sets the score of every IP it covers for this workspace's keys: <strong>allow</strong> answers level minimal, <strong>deny</strong> level critical,
<strong>adjust</strong> adds points. The most specific rule in force wins (IP, then the longest CIDR block, then AS, then country).</p>
<h2>Create a rule</h2>
${createForm(csrf, typed, refusal)}
<h2>Rules in force</h2>
${rulesTable(csrf, rules.items)}
${rules.nextCursor ? html`<p><a href="${OVERRIDES_PATH}?rules_after=${rules.nextCursor}">More rules</a></p>` : ''}
<h2 id="history">History</h2>
<p>Every change, newest first. <a href="${OVERRIDES_PATH}/audit.ndjson" download>Download the audit trail (NDJSON)</a> — oldest first, up to
${OVERRIDE_LIMITS.exportRows.toLocaleString('en')} entries per file; a longer trail continues at <code>?cursor=</code> with the previous file's <code>X-Next-Cursor</code> header.</p>
${auditTable(audit.items)}
${audit.nextCursor ? html`<p><a href="${OVERRIDES_PATH}?audit_after=${audit.nextCursor}#history" id="older">Older changes</a></p>` : ''}`;
  sendHtml(w.res, status, page('Overrides', { email: a.email, csrf }, body));
}

const EMPTY: Typed = { target: '', action: 'deny', points: '', reason: '', note: '', expires_in: 'never' };

/** GET: the page; POST: create a rule from the form (303 back to the page, or the form again with its problems). */
export async function overridesPage(deps: WebDeps, w: SignedIn) {
  if (w.method !== 'POST') return render(deps, w, 200, EMPTY, null);
  const f = await readForm(w.req);
  const typed = Object.fromEntries(Object.keys(EMPTY).map((k) => [k, f.get(k) ?? ''])) as Typed;
  const expiry = EXPIRES_IN.find((e) => e.code === typed.expires_in);
  const extra: ErrorDetail[] = expiry
    ? []
    : [{ field: 'expires_in', message: `must be one of: ${EXPIRES_IN.map((e) => e.code).join(', ')}` }];
  try {
    const rule = await createRule(
      deps,
      w.session.account,
      {
        target: typed.target,
        action: typed.action,
        reason: typed.reason,
        note: typed.note,
        // a number the schema checks; anything else is passed as typed, so the schema names the problem
        points:
          typed.points.trim() === ''
            ? undefined
            : /^[+-]?\d{1,4}$/.test(typed.points.trim())
              ? Number(typed.points)
              : typed.points,
        expiresAt: expiry?.ms ? new Date(Date.now() + expiry.ms).toISOString() : undefined,
      },
      extra,
    );
    redirect(w.res, `${OVERRIDES_PATH}?created=${rule.id}`);
  } catch (e) {
    if (!isAppError(e) || !['invalid_request', 'override_exists', 'override_limit_reached'].includes(e.code)) throw e;
    await render(deps, w, e.status, typed, refusalOf(e));
  }
}

/** POST /workspace/overrides/expire: the rule named by the form's id (not_found for another workspace's). */
export async function expireRulePage(deps: WebDeps, w: SignedIn) {
  const id = (await readForm(w.req)).get('id') ?? '';
  const rule = await expireRule(deps, w.session.account, /^\d{1,10}$/.test(id) ? Number(id) : id);
  redirect(w.res, `${OVERRIDES_PATH}?expired=${rule.id}`);
}

/** GET /workspace/overrides/audit.ndjson: the REST export's answer, for the session's workspace. */
export async function auditDownload(deps: WebDeps, w: SignedIn) {
  const limit = w.query.get('limit');
  const cursor = w.query.get('cursor');
  const page = checkInput(
    overrideAuditSchema,
    {
      ...(limit === null ? {} : { limit: /^\d{1,6}$/.test(limit) ? Number(limit) : limit }),
      ...(cursor === null ? {} : { cursor }),
    },
    { problem: 'The download address is invalid' },
  );
  await sendAuditExport(w.res, deps.services.prisma, w.session.account.workspaceId, page, {
    requestId: w.requestId,
    log: deps.log,
    extraHeaders: securityHeaders,
  });
}
