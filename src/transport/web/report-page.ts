import { AppError } from '../../errors.ts';
import { csrfField, html, page, when, type Html } from './html.ts';
import { sendHtml } from './http.ts';
import type { SignedIn, WebDeps } from './context.ts';
import { DIMENSION_CODES, type DimensionCode } from '../../domain/network/types.ts';
import type { PublishedEntity } from '../../domain/publishing/index.ts';
import { parseIp } from '../../domain/network/ip.ts';
import type { EntitySummary } from '../../domain/scoring/evidence.ts';

/**
 * Direct report pages (the score response's report links): one dimension entity's published
 * summary, the workspace's own layer, its own ratings and reports (IP, subnet and AS map to
 * subject kinds), and the community signal. Each view counts against the workspace's separate
 * daily direct-report quota (counter surface `direct_report`), never against `score`.
 *
 * Only a POST from this site (the router checks Origin and the session's CSRF token) shows the report and
 * counts. A GET (the link itself, which any site can make the browser follow: the session cookie is
 * SameSite=Lax) shows a confirm button and counts nothing.
 */
const SUBJECT_KIND: Partial<Record<DimensionCode, string>> = { ip: 'ipaddress', subnet: 'cidr', asn: 'asn' };
const COMMUNITY_CODES = new Set<DimensionCode>(['ip', 'subnet', 'asn']);

/** The evidence behind a summary, one row per kind, in words. */
const EVIDENCE_ROWS: Array<[keyof EntitySummary['counts'], string]> = [
  ['reports', 'Reports'],
  ['badRatings', 'Bad ratings'],
  ['neutralRatings', 'Neutral ratings'],
  ['goodRatings', 'Good ratings'],
  ['feedListings', 'Feed listings'],
];

function summary(title: string, id: string, s: PublishedEntity | null | undefined): Html {
  if (!s) return html`<h2>${title}</h2><p id="${id}">No summary published.</p>`;
  return html`<h2>${title}</h2><table id="${id}-summary"><tbody><tr><th>Name</th><td>${s.name}</td></tr><tr><th>Score</th><td>${s.score} (${s.level})</td></tr>
<tr><th>Reporters</th><td>${s.reporters}</td></tr><tr><th>First / last seen</th><td>${when(s.firstSeen)} / ${when(s.lastSeen)}</td></tr></tbody></table>
<h3>Evidence</h3><table id="${id}" class="evidence"><tbody>${EVIDENCE_ROWS.map(([k, label]) => html`<tr><th>${label}</th><td>${s.counts[k]}</td></tr>`)}</tbody></table>`;
}

export async function reportPage(deps: WebDeps, w: SignedIn, code: string, rawKey: string) {
  if (!(DIMENSION_CODES as readonly string[]).includes(code))
    throw new AppError('not_found', `Unknown dimension "${code}".`);
  const dim = code as DimensionCode;
  let key: string;
  try {
    key = decodeURIComponent(rawKey);
  } catch {
    throw new AppError('invalid_request', 'The entity key is not valid URL encoding.');
  }
  if (dim === 'ip') {
    const ip = parseIp(key);
    if (!ip.ok) throw new AppError('invalid_request', `Not an IP address: ${ip.reason}.`);
    key = ip.canonical;
  }
  const a = w.session.account;
  const tier = deps.services.tiers.get(a.tier);
  const nowMs = Date.now();
  const chrome = { email: a.email, csrf: w.session.csrfToken };
  const quotaLine = (used: number) =>
    html`<p id="report-quota">Direct report pages today: ${used} / ${tier.directReportLimit} (separate from the API's score quota; resets 00:00 UTC).</p>`;
  if (w.method !== 'POST') {
    const { usedToday: used } = await deps.services.meter.peek(a.workspaceId, tier, 'direct_report');
    return sendHtml(
      w.res,
      200,
      page(
        `${dim} ${key}`,
        chrome,
        html`${quotaLine(used)}
<form method="post" action="/workspace/reports/${dim}/${encodeURIComponent(key)}">${csrfField(w.session.csrfToken)}
<p>Opening this report uses one of your ${tier.directReportLimit} direct report pages today.</p><button type="submit" id="open-report">Open the report</button></form>`,
      ),
    );
  }
  const quota = await deps.services.meter.consumeReportPage(a.workspaceId, tier);
  if (!quota.counted) {
    return sendHtml(
      w.res,
      429,
      page(
        'Daily report page limit reached',
        chrome,
        html`${quotaLine(quota.used)}<p class="notice error">The ${tier.name} tier allows ${tier.directReportLimit} report pages per day. Upgrade on the <a href="/workspace/subscription">subscription page</a>.</p>`,
      ),
    );
  }
  const snapshot = deps.services.publications.current();
  const published = snapshot.global(dim, key);
  const own = snapshot.contextual(a.workspaceId)(dim, key);
  const kind = SUBJECT_KIND[dim];
  const subject = kind
    ? await deps.services.prisma.subject.findUnique({
        where: { workspaceId_kind_key: { workspaceId: a.workspaceId, kind, key } },
        include: { ratings: { orderBy: { id: 'desc' }, take: 20 }, reports: { orderBy: { id: 'desc' }, take: 20 } },
      })
    : null;
  const community = COMMUNITY_CODES.has(dim) ? await deps.services.community.read(`${dim}:${key}`, nowMs) : null;
  const body = html`${quotaLine(quota.used)}
${summary('Published summary (all workspaces, shareable evidence)', 'published-evidence', published)}
${summary('Your workspace’s own layer', 'own-evidence', own)}
<h2>Your ratings</h2>${subject?.ratings.length ? html`<ul>${subject.ratings.map((r) => html`<li>${when(r.createdAt)}: ${r.rating > 0 ? 'good' : r.rating < 0 ? 'bad' : 'neutral'} ${r.note}</li>`)}</ul>` : html`<p>None.</p>`}
<h2>Your reports</h2>${subject?.reports.length ? html`<ul>${subject.reports.map((r) => html`<li>${when(r.createdAt)}: <strong>${r.title || r.outcomeCode}</strong> (${r.severity}) ${r.summary}</li>`)}</ul>` : html`<p>None.</p>`}
<h2>Community signal</h2>${community ? html`<p id="community">${community.label}${community.hasSpike ? ' (spike)' : ''}: ${community.lookups10m} lookups in the last window, ${community.requesters60m} requesters in 60 minutes.</p>` : html`<p>Not collected for this dimension (IP, subnet and AS only).</p>`}
<p>Publication ${snapshot.version}${snapshot.publishedAt ? html`, ${when(snapshot.publishedAt)}` : ''}.</p>`;
  sendHtml(w.res, 200, page(`${dim} ${key}`, chrome, body));
}
