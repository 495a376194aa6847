/**
 * The Model page: how often each risk level was right on this workspace's own data (quality/model-report.ts,
 * workspace scope: the published evidence plus the workspace's own reports and ratings, never another workspace's
 * private ones), as a table and a chart. The report is computed in the background (model-report-runs.ts); until it
 * is ready the page says so and reloads itself.
 */
import { html, page, when, type Html } from './html.ts';
import { sendHtml } from './http.ts';
import type { SignedIn } from './context.ts';
import type { ModelReport } from '../../domain/quality/model-report.ts';
import type { ModelReportRuns } from '../../domain/quality/model-report-runs.ts';

const pct = (x: number | null) => (x === null ? '—' : `${(100 * x).toFixed(1)}%`);

const W = 520,
  H = 220,
  LEFT = 44,
  BOTTOM = 34,
  TOP = 14;
const PLOT_H = H - TOP - BOTTOM;

/** One bar per level: its precision (share reported bad afterwards), labelled with reported / scored. */
export function precisionChart(r: ModelReport): Html {
  const slot = (W - LEFT - 8) / r.levels.length;
  const y = (share: number) => TOP + PLOT_H * (1 - share);
  const grid = [0, 0.25, 0.5, 0.75, 1].map(
    (g) =>
      html`<line class="grid" x1="${LEFT}" x2="${W - 8}" y1="${y(g)}" y2="${y(g)}"/><text x="${LEFT - 6}" y="${y(g) + 4}" text-anchor="end">${g * 100}%</text>`,
  );
  const bars = r.levels.map((l, i) => {
    const x = LEFT + i * slot + slot * 0.2;
    const share = l.precision ?? 0;
    return html`<g class="level" data-level="${l.level}"><rect class="series-0" x="${x.toFixed(1)}" y="${y(share).toFixed(1)}" width="${(slot * 0.6).toFixed(1)}" height="${(PLOT_H * share).toFixed(1)}"><title>${l.level}: ${l.reportedBad} of ${l.scored} reported bad (${pct(l.precision)})</title></rect>
<text x="${(x + slot * 0.3).toFixed(1)}" y="${H - BOTTOM + 16}" text-anchor="middle">${l.level}</text>
<text x="${(x + slot * 0.3).toFixed(1)}" y="${H - 4}" text-anchor="middle">${l.reportedBad}/${l.scored}</text></g>`;
  });
  return html`<div class="scroll"><svg id="model-chart" role="img" aria-label="Share of IPs reported bad afterwards, per level" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">${grid}${bars}</svg></div>`;
}

function reportBody(r: ModelReport, computedAt: Date): Html {
  const rows = r.levels.map(
    (l) =>
      html`<tr data-level="${l.level}"><td>${l.level}</td><td>${l.scored}</td><td>${l.reportedBad}</td><td>${pct(l.precision)}</td></tr>`,
  );
  const ew = r.earlyWarning;
  return html`<p>For each day of the last ${r.sinceDays} days whose ${r.windowDays}-day window has ended, IPs with
evidence your workspace can see were scored as the model stood that day (each IP once), then checked against what
was reported afterwards: a harmful report or a bad rating within ${r.windowDays} days, by anyone in the community or by
your workspace (other workspaces' private reports never count here). Computed ${when(computedAt)}.</p>
${
  r.ips === 0
    ? html`<p id="model-empty" class="notice warn">No IP with evidence in this period yet: the table fills as reports
arrive and their ${r.windowDays}-day windows end.</p>`
    : ''
}
<div class="scroll"><table id="model-levels"><thead><tr><th>Level</th><th>IPs scored</th><th>Reported bad after</th><th>Right (precision)</th></tr></thead>
<tbody>${rows}</tbody></table></div>
${precisionChart(r)}
<table><tbody><tr><th>Early warning</th><td id="model-early-warning">${pct(ew.share)} (${ew.warned} of ${ew.cases} IPs first reported bad were already medium or higher)</td></tr>
<tr><th>ROC AUC</th><td id="model-auc">${r.auc === null ? '—' : r.auc.toFixed(3)}</td></tr>
<tr><th>IPs sampled</th><td id="model-ips">${r.ips}</td></tr></tbody></table>`;
}

export function modelPage(runs: ModelReportRuns, w: SignedIn) {
  const a = w.session.account;
  const state = runs.request(a.workspaceId);
  const chrome = { email: a.email, csrf: w.session.csrfToken };
  let body: Html;
  let refresh: number | undefined;
  switch (state.state) {
    case 'ready':
      body = reportBody(state.report, state.computedAt);
      break;
    case 'computing':
      body = html`<p id="model-computing" class="notice">The model report for your workspace is being computed; this page reloads itself.</p>`;
      refresh = 3;
      break;
    case 'busy':
      body = html`<p id="model-busy" class="notice warn">Many model reports are being computed; try again in a minute.</p>`;
      break;
    case 'failed':
      body = html`<p id="model-failed" class="notice error" role="alert">The model report could not be computed (${when(state.at)}); it is tried again a minute later.</p>`;
      break;
  }
  sendHtml(w.res, 200, page('Model', chrome, body, refresh === undefined ? {} : { refreshSeconds: refresh }));
}
