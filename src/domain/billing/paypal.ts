import type { PaymentProvider, VerifiedEvent, SubscriptionEventKind } from './provider.ts';
import { ProviderUnavailable, WebhookRejected } from './provider.ts';
import { CertificateCache, checkFreshness, readSignatureHeaders, signedString, verifySignature } from './paypal-signature.ts';

/**
 * PayPal Subscriptions (REST v1): OAuth client-credentials token, POST /v1/billing/subscriptions
 * against the tier's plan, the buyer approves at the `approve` link, and PayPal reports the
 * outcome by webhook (BILLING.SUBSCRIPTION.*), verified locally (paypal-signature.ts).
 */
export type PayPalSettings = { apiBase: string; clientId: string; clientSecret: string; webhookId: string; plans: Record<string, string>; certHosts: string[] };

const KINDS: Record<string, SubscriptionEventKind> = {
  'BILLING.SUBSCRIPTION.ACTIVATED': 'activated',
  'BILLING.SUBSCRIPTION.CANCELLED': 'cancelled',
  'BILLING.SUBSCRIPTION.EXPIRED': 'cancelled',
  'BILLING.SUBSCRIPTION.SUSPENDED': 'suspended',
  'BILLING.SUBSCRIPTION.PAYMENT.FAILED': 'payment_failed',
};

export class PayPalProvider implements PaymentProvider {
  readonly name = 'PayPal';
  private token: { value: string; until: number } | null = null;
  private certs: CertificateCache;

  constructor(private s: PayPalSettings, private now = () => Date.now()) {
    const apiOrigin = new URL(s.apiBase).origin;
    // The certificate must come from PayPal itself (https, a configured host) or from the configured API origin.
    this.certs = new CertificateCache((u) => u.origin === apiOrigin || (u.protocol === 'https:' && s.certHosts.includes(u.hostname)));
  }

  planFor(tier: string) { return this.s.plans[tier]; }

  private async accessToken(): Promise<string> {
    if (this.token && this.token.until > this.now()) return this.token.value;
    const res = await this.call('/v1/oauth2/token', {
      method: 'POST', body: 'grant_type=client_credentials',
      headers: { authorization: `Basic ${Buffer.from(`${this.s.clientId}:${this.s.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    });
    const body = res as { access_token?: string; expires_in?: number };
    if (!body.access_token) throw new ProviderUnavailable('PayPal token response without access_token');
    this.token = { value: body.access_token, until: this.now() + Math.max(0, (body.expires_in ?? 0) - 60) * 1000 };
    return body.access_token;
  }

  async createSubscription(input: { planId: string; orderCode: string; email: string; returnUrl: string; cancelUrl: string }) {
    const token = await this.accessToken();
    const body = await this.call('/v1/billing/subscriptions', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'paypal-request-id': input.orderCode, prefer: 'return=representation' },
      body: JSON.stringify({
        plan_id: input.planId, custom_id: input.orderCode, subscriber: { email_address: input.email },
        application_context: { user_action: 'SUBSCRIBE_NOW', return_url: input.returnUrl, cancel_url: input.cancelUrl },
      }),
    }) as { id?: string; links?: Array<{ rel?: string; href?: string }> };
    const approve = body.links?.find((l) => l.rel === 'approve')?.href;
    if (!body.id || !approve) throw new ProviderUnavailable('PayPal subscription response without id or approve link');
    return { providerId: body.id, approvalUrl: approve };
  }

  async verifyWebhook(headers: Record<string, string | string[] | undefined>, rawBody: Buffer): Promise<VerifiedEvent> {
    const h = readSignatureHeaders(headers);
    checkFreshness(h.transmissionTime, this.now());
    const pem = await this.certs.get(h.certUrl).catch((e) => { throw e instanceof WebhookRejected ? e : new WebhookRejected(`certificate unavailable: ${String(e)}`); });
    verifySignature(pem, signedString(h.transmissionId, h.transmissionTime, this.s.webhookId, rawBody), h.signature, h.authAlgo);
    let event: { id?: unknown; event_type?: unknown; create_time?: unknown; resource?: { id?: unknown; plan_id?: unknown; custom_id?: unknown } };
    try { event = JSON.parse(rawBody.toString('utf8')); } catch { throw new WebhookRejected('body is not JSON'); }
    const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);
    const id = str(event.id), type = str(event.event_type), created = Date.parse(String(event.create_time));
    if (!id || !type || Number.isNaN(created)) throw new WebhookRejected('event without id, event_type or create_time');
    return {
      id, rawType: type, kind: KINDS[type] ?? 'other', createdAt: new Date(created),
      subscriptionId: str(event.resource?.id), planId: str(event.resource?.plan_id), orderCode: str(event.resource?.custom_id),
    };
  }

  private async call(path: string, init: RequestInit): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(this.s.apiBase + path, { ...init, signal: AbortSignal.timeout(15_000) });
    } catch (e) {
      throw new ProviderUnavailable(`PayPal unreachable: ${String(e)}`);
    }
    const text = await res.text();
    if (!res.ok) throw new ProviderUnavailable(`PayPal ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    try { return JSON.parse(text); } catch { throw new ProviderUnavailable(`PayPal ${path} answered non-JSON`); }
  }
}
