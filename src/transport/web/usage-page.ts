import { html, page, type Html } from './html.ts';
import { sendHtml } from './http.ts';
import type { SignedIn, WebDeps } from './context.ts';
import { usageOf } from './workspace-actions.ts';
import { usageChart } from './usage-chart.ts';
import { MAX_KEYS_IN_BREAKDOWN, USAGE_DAYS, type Usage } from './usage.ts';

const n = (v: number) => v.toLocaleString('en-US');
const sum = (list: number[]) => list.reduce((a, b) => a + b, 0);

/** Calls per key: today, the last 7 days and the last 30 (the chart's segments, as numbers). Four columns: a phone's width. */
function perKeyTable(u: Usage): Html {
  const row = (
    label: Html,
    prefix: string,
    used: number[],
  ) => html`<tr${prefix ? html` data-prefix="${prefix}"` : ''}><td>${label}</td>
<td>${n(used.at(-1) ?? 0)}</td><td>${n(sum(used.slice(-7)))}</td><td>${n(sum(used))}</td></tr>`;
  const rows = u.by_key.map((k) =>
    row(
      html`${k.name}<br><code>${k.prefix}</code>${k.status === 'active' ? '' : html` <em>${k.status}</em>`}`,
      k.prefix,
      k.used,
    ),
  );
  if (sum(u.not_attributed) > 0) rows.push(row(html`<em>not attributed to a key</em>`, '', u.not_attributed));
  const unread =
    u.keys_not_read > 0
      ? html`<p>${u.keys_not_read} more keys are not broken down (only the ${MAX_KEYS_IN_BREAKDOWN} most recently used are); their calls count as not attributed.</p>`
      : '';
  return html`<div class="scroll"><table id="usage-by-key"><thead><tr><th>Key</th><th>Today</th><th>7 days</th><th>${USAGE_DAYS} days</th></tr></thead>
<tbody>${rows}</tbody></table></div>${unread}
<p>Calls counted before per-key counting was introduced, and calls of keys beyond the breakdown, show as not attributed.</p>`;
}

export async function usagePage(deps: WebDeps, w: SignedIn) {
  const a = w.session.account;
  const u = await usageOf(deps, a);
  const body = html`<p>Tier <strong>${u.tier.name}</strong>. Counts reset at 00:00 UTC.</p>
<table><tbody><tr><th>Score calls today (API)</th><td id="score-usage">${u.score.used_today} / ${u.score.daily_limit}</td></tr>
<tr><th>Direct report pages today</th><td id="report-usage">${u.direct_report.used_today} / ${u.direct_report.daily_limit}</td></tr>
<tr><th>Agent (MCP) score calls today</th><td id="agent-usage">${u.agent.used_today} / ${u.agent.daily_limit}</td></tr></tbody></table>
<h2>Score calls, last ${USAGE_DAYS} days</h2>
${sum(u.days.map((d) => d.used)) === 0 ? html`<p id="usage-none">No score calls in the last ${USAGE_DAYS} days.</p>` : ''}
${usageChart(u, u.score.daily_limit)}
<h2>By key</h2>
${u.by_key.length || sum(u.not_attributed) ? perKeyTable(u) : html`<p>No keys yet.</p>`}`;
  sendHtml(w.res, 200, page('Usage', { email: a.email, csrf: w.session.csrfToken }, body));
}
