import { html, page } from './html.ts';
import { sendHtml } from './http.ts';
import type { SignedIn, WebDeps } from './context.ts';
import { usageOf } from './workspace-actions.ts';
import { usageChart } from './usage-chart.ts';

export async function usagePage(deps: WebDeps, w: SignedIn) {
  const a = w.session.account;
  const u = await usageOf(deps, a);
  const body = html`<p>Tier <strong>${u.tier.name}</strong>. Counts reset at 00:00 UTC.</p>
<table><tbody><tr><th>Score calls today (API)</th><td id="score-usage">${u.score.used_today} / ${u.score.daily_limit}</td></tr>
<tr><th>Direct report pages today</th><td id="report-usage">${u.direct_report.used_today} / ${u.direct_report.daily_limit}</td></tr>
<tr><th>Agent (MCP) score calls today</th><td id="agent-usage">${u.agent.used_today} / ${u.agent.daily_limit}</td></tr></tbody></table>
<h2>Score calls, last 30 days</h2>${usageChart(u.days, u.score.daily_limit)}`;
  sendHtml(w.res, 200, page('Usage', { email: a.email, csrf: w.session.csrfToken }, body));
}
