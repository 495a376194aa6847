import { readFileSync } from 'node:fs';
import type { X509Certificate } from 'node:crypto';
import type { PaymentProvider, VerifiedEvent, SubscriptionEventKind } from './provider.ts';
import { ProviderUnavailable, WebhookRejected } from './provider.ts';
import {
  checkFreshness,
  readSignatureHeaders,
  signedString,
  TrustAnchors,
  verifyChain,
  verifySignature,
} from './paypal-signature.ts';
import { CertificateCache, certUrlTrusted } from './paypal-certificates.ts';

/**
 * PayPal Subscriptions (REST v1): OAuth client-credentials token, POST /v1/billing/subscriptions
 * against the tier's plan, the buyer approves at the `approve` link, and PayPal reports the
 * outcome by webhook (BILLING.SUBSCRIPTION.*), verified locally (paypal-signature.ts). A superseded
 * subscription is cancelled with POST /v1/billing/subscriptions/{id}/cancel (cancellations.ts retries it).
 */
export type PayPalSettings = {
  apiBase: string;
  clientId: string;
  clientSecret: string;
  webhookId: string;
  plans: Record<string, string>;
  certHosts: string[];
  /** PEM file of CA certificates trusted, besides Node's roots, as anchors of the webhook certificate chain. */
  certCaFile?: string | undefined;
};

/** A PayPal answer other than 2xx: retried by callers, except where the status says retrying is useless. */
class PayPalHttpError extends ProviderUnavailable {
  constructor(
    message: string,
    readonly status: number,
    readonly issues: string[],
    retryAfterS: number | undefined,
  ) {
    // Only a timeout, throttling or a server-side failure passes by itself; any other refusal needs the operator.
    super(message, status === 408 || status === 429 || status >= 500, retryAfterS);
  }
}

/** PayPal's Retry-After in seconds, when it is a sane number of them (HTTP dates and hours-long waits are ignored). */
function retryAfterOf(res: Response): number | undefined {
  const s = Number(res.headers.get('retry-after'));
  return Number.isInteger(s) && s >= 1 && s <= 3600 ? s : undefined;
}

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
  /** The token request in flight: concurrent calls share it rather than each asking PayPal for a token. */
  private tokenRequest: Promise<string> | null = null;
  private certs: CertificateCache;
  private anchors: TrustAnchors;

  constructor(
    private s: PayPalSettings,
    private now = () => Date.now(),
  ) {
    const apiOrigin = new URL(s.apiBase).origin;
    let extra = '';
    if (s.certCaFile) {
      try {
        extra = readFileSync(s.certCaFile, 'utf8');
      } catch (e) {
        throw new Error(`PAYPAL_CERT_CA_FILE: cannot read ${s.certCaFile}: ${(e as Error).message}`);
      }
    }
    try {
      this.anchors = new TrustAnchors(extra);
    } catch (e) {
      throw new Error(`PAYPAL_CERT_CA_FILE: ${s.certCaFile} ${(e as Error).message}`);
    }
    this.certs = new CertificateCache((u) => certUrlTrusted(u, apiOrigin, s.certHosts), { now });
  }

  planFor(tier: string) {
    return this.s.plans[tier];
  }

  private accessToken(): Promise<string> {
    if (this.token && this.token.until > this.now()) return Promise.resolve(this.token.value);
    this.tokenRequest ??= this.requestToken().finally(() => {
      this.tokenRequest = null;
    });
    return this.tokenRequest;
  }

  private async requestToken(): Promise<string> {
    const res = await this.call('/v1/oauth2/token', {
      method: 'POST',
      body: 'grant_type=client_credentials',
      headers: {
        authorization: `Basic ${Buffer.from(`${this.s.clientId}:${this.s.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
    });
    const body = res as { access_token?: string; expires_in?: number };
    if (!body.access_token) throw new ProviderUnavailable('PayPal token response without access_token');
    this.token = { value: body.access_token, until: this.now() + Math.max(0, (body.expires_in ?? 0) - 60) * 1000 };
    return body.access_token;
  }

  /**
   * A REST call with the cached access token. PayPal may stop accepting a token before the expiry it
   * announced (revoked, rotated credentials): on 401 the token is replaced and the call retried once.
   * A 401 from the token request itself (wrong client credentials) is not retried.
   */
  private async authorized(path: string, init: RequestInit & { headers: Record<string, string> }): Promise<unknown> {
    const send = (token: string) =>
      this.call(path, { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } });
    const token = await this.accessToken();
    try {
      return await send(token);
    } catch (e) {
      if (!(e instanceof PayPalHttpError && e.status === 401)) throw e;
      if (this.token?.value === token) this.token = null; // unless a concurrent call has replaced it already
      return send(await this.accessToken());
    }
  }

  async createSubscription(input: {
    planId: string;
    orderCode: string;
    email: string;
    returnUrl: string;
    cancelUrl: string;
  }) {
    // PayPal-Request-Id makes the retry after a 401 safe: PayPal creates one subscription per order code.
    const body = (await this.authorized('/v1/billing/subscriptions', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'paypal-request-id': input.orderCode,
        prefer: 'return=representation',
      },
      body: JSON.stringify({
        plan_id: input.planId,
        custom_id: input.orderCode,
        subscriber: { email_address: input.email },
        application_context: { user_action: 'SUBSCRIBE_NOW', return_url: input.returnUrl, cancel_url: input.cancelUrl },
      }),
    })) as { id?: string; links?: Array<{ rel?: string; href?: string }> };
    const approve = body.links?.find((l) => l.rel === 'approve')?.href;
    if (!body.id || !approve) throw new ProviderUnavailable('PayPal subscription response without id or approve link');
    return { providerId: body.id, approvalUrl: approve };
  }

  async verifyWebhook(headers: Record<string, string | string[] | undefined>, rawBody: Buffer): Promise<VerifiedEvent> {
    const h = readSignatureHeaders(headers);
    checkFreshness(h.transmissionTime, this.now());
    if (h.authAlgo !== 'SHA256withRSA') throw new WebhookRejected(`unsupported PAYPAL-AUTH-ALGO ${h.authAlgo}`);
    const signed = signedString(h.transmissionId, h.transmissionTime, this.s.webhookId, rawBody);
    const verifyWith = async (chain: Promise<X509Certificate[]>) =>
      verifySignature(verifyChain(await chain, this.anchors, this.now()), signed, h.signature, h.authAlgo);
    const cached = this.certs.get(h.certUrl);
    await cached; // a certificate that cannot be fetched (or is not trusted) refuses the delivery as it is
    try {
      await verifyWith(cached);
    } catch (e) {
      // PayPal may have rotated the certificate behind the same URL, or the cached one expired: fetch it
      // again (rate-limited per URL, so forged deliveries cannot make us hammer PayPal) and check once more.
      const fresh = e instanceof WebhookRejected ? this.certs.refetch(h.certUrl, cached) : null;
      if (!fresh) throw e;
      await verifyWith(fresh);
    }
    let event: {
      id?: unknown;
      event_type?: unknown;
      create_time?: unknown;
      resource?: { id?: unknown; plan_id?: unknown; custom_id?: unknown };
    };
    try {
      event = JSON.parse(rawBody.toString('utf8'));
    } catch {
      throw new WebhookRejected('body is not JSON');
    }
    const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);
    const id = str(event.id),
      type = str(event.event_type),
      created = Date.parse(String(event.create_time));
    if (!id || !type || Number.isNaN(created)) throw new WebhookRejected('event without id, event_type or create_time');
    return {
      id,
      rawType: type,
      kind: KINDS[type] ?? 'other',
      createdAt: new Date(created),
      subscriptionId: str(event.resource?.id),
      planId: str(event.resource?.plan_id),
      orderCode: str(event.resource?.custom_id),
    };
  }

  async cancelSubscription(providerId: string, reason: string): Promise<'cancelled' | 'inactive'> {
    try {
      await this.authorized(`/v1/billing/subscriptions/${encodeURIComponent(providerId)}/cancel`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ reason: reason.slice(0, 128) || 'Cancelled' }),
      });
      return 'cancelled';
    } catch (e) {
      // 422 SUBSCRIPTION_STATUS_INVALID: "status should be active or suspended": it bills no more already.
      // USER_ACCOUNT_CLOSED: the buyer's account is closed: nothing can be charged to it.
      if (
        e instanceof PayPalHttpError &&
        e.status === 422 &&
        e.issues.some((i) => i === 'SUBSCRIPTION_STATUS_INVALID' || i === 'USER_ACCOUNT_CLOSED')
      )
        return 'inactive';
      throw e;
    }
  }

  private async call(path: string, init: RequestInit): Promise<unknown> {
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.s.apiBase + path, { ...init, signal: AbortSignal.timeout(15_000) });
      text = await res.text(); // the connection may also drop, or the timeout strike, while the body arrives
    } catch (e) {
      const cause = (e as { cause?: unknown }).cause;
      throw new ProviderUnavailable(`PayPal unreachable: ${String(e)}${cause ? ` (${String(cause)})` : ''}`);
    }
    if (!res.ok) {
      let issues: string[] = [];
      try {
        issues = ((JSON.parse(text) as { details?: Array<{ issue?: unknown }> }).details ?? []).map((d) =>
          String(d.issue),
        );
      } catch {
        /* not JSON */
      }
      throw new PayPalHttpError(
        `PayPal ${path} answered ${res.status}: ${text.slice(0, 300)}`,
        res.status,
        issues,
        retryAfterOf(res),
      );
    }
    if (res.status === 204 || text === '') return null;
    try {
      return JSON.parse(text);
    } catch {
      throw new ProviderUnavailable(`PayPal ${path} answered non-JSON`);
    }
  }
}
