import { workspaceDb } from '../../domain/workspace/scope.ts';
import { html, page, when } from './html.ts';
import { sendHtml } from './http.ts';
import type { SignedIn, WebDeps } from './context.ts';
import { usageOf } from './workspace-actions.ts';

/**
 * The workspace at a glance (GET /workspace/): the tier and today's use of each quota, the keys, the latest
 * writes, the rules in force, the watches, the endpoints whose deliveries fail, and the publication the scores
 * come from; each part links to its own page. Every read is scoped to the session's workspace.
 */
const RECENT = 5;
const n = (v: number) => v.toLocaleString('en-US');

export async function overviewPage(deps: WebDeps, w: SignedIn) {
  const a = w.session.account;
  const db = workspaceDb(deps.services.prisma, a.workspaceId);
  const [usage, reports, ratings, watches, failing, pending] = await Promise.all([
    usageOf(deps, a),
    db.report.findMany({
      orderBy: { id: 'desc' },
      take: RECENT,
      select: {
        createdAt: true,
        outcomeCode: true,
        severity: true,
        title: true,
        subject: { select: { kind: true, key: true } },
      },
    }),
    db.rating.findMany({
      orderBy: { id: 'desc' },
      take: RECENT,
      select: { createdAt: true, rating: true, subject: { select: { key: true } } },
    }),
    db.watch.count(),
    db.webhookEndpoint.findMany({
      where: { OR: [{ failingSince: { not: null } }, { status: 'disabled' }] },
      orderBy: { id: 'asc' },
      select: { id: true, url: true, status: true, failingSince: true, disabledReason: true },
    }),
    db.webhookDelivery.count({ where: { status: 'pending', attempts: { gt: 0 } } }),
  ]);
  const rules = deps.services.overrides.inForce(a.workspaceId);
  const publication = deps.services.publications.current();
  const activeKeys = usage.by_key.filter((k) => k.status === 'active');
  const writes = [
    ...reports.map((r) => ({
      at: r.createdAt,
      what: html`report <strong>${r.title || r.outcomeCode}</strong> (${r.outcomeCode}, ${r.severity}) on ${r.subject.kind} <code>${r.subject.key}</code>`,
    })),
    ...ratings.map((r) => ({
      at: r.createdAt,
      what: html`rating ${r.rating > 0 ? 'good' : r.rating < 0 ? 'bad' : 'neutral'} on <code>${r.subject.key}</code>`,
    })),
  ]
    .sort((x, y) => y.at.getTime() - x.at.getTime())
    .slice(0, RECENT);
  const quota = (label: string, id: string, q: { used_today: number; daily_limit: number }) =>
    html`<tr><th>${label}</th><td id="${id}">${n(q.used_today)} / ${n(q.daily_limit)}</td></tr>`;
  const body = html`<p>Workspace <strong>${a.workspaceName}</strong>, tier <strong>${usage.tier.name}</strong>
(<a href="/workspace/subscription">subscription</a>). Counts reset at 00:00 UTC; <a href="/workspace/usage">usage by day and key</a>.</p>
<h2>Today</h2>
<table id="overview-quotas"><tbody>${quota('Score calls (API)', 'overview-score', usage.score)}
${quota('Agent (MCP) score calls', 'overview-agent', usage.agent)}
${quota('Direct report pages', 'overview-reports', usage.direct_report)}</tbody></table>
<h2>Keys</h2>
<p id="overview-keys">${activeKeys.length ? html`${activeKeys.length} active: ${activeKeys.slice(0, RECENT).map((k, i) => html`${i ? ', ' : ''}${k.name} (<code>${k.prefix}</code>)`)}${activeKeys.length > RECENT ? '…' : ''}.` : 'No active key.'}
<a href="/workspace/keys">Manage keys</a></p>
<h2>Latest writes</h2>
${writes.length ? html`<ul id="overview-writes">${writes.map((x) => html`<li>${when(x.at)}: ${x.what}</li>`)}</ul>` : html`<p id="overview-writes">No report or rating yet.</p>`}
<h2>Rules, watches and webhooks</h2>
<ul id="overview-state">
<li>${rules.length} override rule${rules.length === 1 ? '' : 's'} in force (<a href="/workspace/overrides">overrides</a>)</li>
<li>${watches} watch${watches === 1 ? '' : 'es'} (<a href="/workspace/watches">watches</a>)</li>
<li id="overview-deliveries">${failing.length || pending ? html`<strong>${failing.length} failing endpoint${failing.length === 1 ? '' : 's'}</strong>, ${pending} deliver${pending === 1 ? 'y' : 'ies'} retrying (<a href="/workspace/webhooks/deliveries?status=pending">deliveries</a>)${failing.map((e) => html`<br><code>${e.url}</code>: ${e.status === 'disabled' ? `disabled${e.disabledReason ? ` (${e.disabledReason})` : ''}` : `failing since ${when(e.failingSince)}`}`)}` : html`Webhook deliveries are going through (<a href="/workspace/webhooks">webhooks</a>)`}</li>
</ul>
<h2>Publication</h2>
<p id="overview-publication">${publication.version ? html`Scores come from publication ${publication.version}, published ${when(publication.publishedAt)}.` : 'Nothing has been published yet: scores are 0 until the first publication.'}</p>`;
  sendHtml(w.res, 200, page('Overview', { email: a.email, csrf: w.session.csrfToken }, body));
}
