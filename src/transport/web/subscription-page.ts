import { html, page, csrfField, when } from './html.ts';
import { readForm, redirect, sendHtml } from './http.ts';
import type { SignedIn, WebDeps } from './context.ts';
import {
  requestTier,
  resendApprovalMail,
  sendConfirmationMail,
  subscriptionState,
  tierOffers,
} from './workspace-actions.ts';

const SENT: Record<string, string> = {
  '1': 'The e-mail with the approval link is on its way.',
  confirmation: 'The e-mail with the confirmation link is on its way.',
};

/**
 * Subscription: current tier, tier choice, the pending request (order code, last e-mail, resend). An
 * account whose address is unconfirmed (made before confirmation existed) is offered the confirmation
 * link instead of the tier choice: approval links go to confirmed addresses only.
 */
export async function subscriptionPage(
  deps: WebDeps,
  w: SignedIn,
  action: 'show' | 'request' | 'resend' | 'confirm-email',
) {
  const a = w.session.account;
  const notice = SENT[w.query.get('sent') ?? ''] ?? null;
  if (w.method === 'POST') {
    const f = await readForm(w.req);
    if (action === 'request') await requestTier(deps, a, f.get('tier') ?? '');
    else if (action === 'confirm-email') await sendConfirmationMail(deps, a);
    else await resendApprovalMail(deps, a);
    return redirect(w.res, `/workspace/subscription?sent=${action === 'confirm-email' ? 'confirmation' : '1'}`);
  }
  const view = await subscriptionState(deps, a);
  const tiers = tierOffers(deps).filter((t) => t.requestable);
  const r = view.request;
  const mailWhere = view.mailDelivered
    ? ''
    : html`<p class="notice warn">E-mail is not configured on this server (SMTP_URL unset): messages are kept in the
<code>MailOutbox</code> table; the operator reads them with <code>risk-api mail held</code>.</p>`;
  const body = html`${notice ? html`<p class="notice ok" role="status">${notice}</p>` : ''}
<p id="current-tier">Current tier: <strong>${deps.services.tiers.get(view.tier).name}</strong> — ${view.dailyLimit} score calls per day.</p>
${
  r
    ? html`<h2>Latest request</h2><table id="request"><tbody>
<tr><th>Order code</th><td><code>${r.orderCode}</code></td></tr>
<tr><th>Tier</th><td>${deps.services.tiers.get(r.tier).name}</td></tr>
<tr><th>Status</th><td id="request-status">${r.status}</td></tr>
<tr><th>Requested</th><td>${when(r.createdAt)}</td></tr>
<tr><th>Last e-mail sent</th><td>${when(r.lastEmailAt)} to ${a.email}</td></tr></tbody></table>
${
  r.status === 'pending'
    ? html`<p>Open the approval link in the e-mail to confirm at ${view.provider ?? 'the provider'}. The tier applies when the provider confirms.</p>
<form method="post" action="/workspace/subscription/resend">${csrfField(w.session.csrfToken)}<button type="submit">Send the e-mail again</button> (at most once a minute)</form>`
    : ''
}`
    : ''
}
${mailWhere}
<h2>Choose a tier</h2>
${
  !a.emailVerified
    ? html`<p class="notice warn" id="unconfirmed">Your e-mail address ${a.email} is not confirmed yet. Approval links are sent only to
confirmed addresses: confirm it first.</p><form method="post" action="/workspace/subscription/confirm-email">${csrfField(w.session.csrfToken)}
<button type="submit">Send the confirmation link</button> (at most once a minute)</form>`
    : view.provider
      ? html`<form method="post" action="/workspace/subscription">${csrfField(w.session.csrfToken)}
<div class="scroll"><table><thead><tr><th></th><th>Tier</th><th>Score calls per day</th><th>Report pages per day</th><th>Agent (MCP) score calls per day</th><th>Price per month</th></tr></thead><tbody>
${tiers.map(
  (t) => html`<tr><td><input type="radio" name="tier" value="${t.code}" id="tier-${t.code}" required></td>
<td><label for="tier-${t.code}">${t.name}</label></td><td>${t.dailyLimit}</td><td>${t.directReportLimit}</td><td>${t.agentDailyLimit}</td><td>$${(t.priceCents / 100).toFixed(2)}</td></tr>`,
)}
</tbody></table></div><p><button type="submit">Request this tier</button> — we e-mail you the ${view.provider} approval link.</p></form>`
      : html`<p class="notice warn">No payment provider is configured on this server (PAYPAL_* settings), so tiers cannot be requested here.</p>`
}`;
  sendHtml(w.res, 200, page('Subscription', { email: a.email, csrf: w.session.csrfToken }, body));
}
