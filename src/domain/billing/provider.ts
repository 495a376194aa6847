/**
 * The payment provider seen by the control plane. One real implementation (paypal.ts);
 * the local dev provider (src/cli/dev-provider.ts) speaks the same wire protocol, so the
 * same adapter talks to both.
 */
export type SubscriptionEventKind = 'activated' | 'cancelled' | 'suspended' | 'payment_failed' | 'other';

/** A webhook event whose signature has been verified. */
export type VerifiedEvent = {
  id: string;
  kind: SubscriptionEventKind;
  /** The provider's own event type, e.g. BILLING.SUBSCRIPTION.ACTIVATED. */
  rawType: string;
  createdAt: Date;
  subscriptionId: string | null;
  planId: string | null;
  /** Our order code, echoed back by the provider (PayPal custom_id). */
  orderCode: string | null;
};

export type CreatedSubscription = { providerId: string; approvalUrl: string };

export interface PaymentProvider {
  readonly name: string;
  /** The provider's plan id for a tier, or undefined when the tier cannot be bought. */
  planFor(tier: string): string | undefined;
  createSubscription(input: {
    planId: string;
    orderCode: string;
    email: string;
    returnUrl: string;
    cancelUrl: string;
  }): Promise<CreatedSubscription>;
  /** Verifies the signature and freshness of a webhook delivery; throws WebhookRejected otherwise. */
  verifyWebhook(headers: Record<string, string | string[] | undefined>, rawBody: Buffer): Promise<VerifiedEvent>;
  /**
   * Cancels a subscription at the provider so it bills no more. `cancelled`: the provider accepted it;
   * `inactive`: the provider says it is not active any more (already cancelled or expired, or never
   * approved), so there is nothing to cancel. Throws ProviderUnavailable when it should be retried.
   */
  cancelSubscription(providerId: string, reason: string): Promise<'cancelled' | 'inactive'>;
}

export class WebhookRejected extends Error {
  override readonly name = 'WebhookRejected';
}

/** The provider did not do what was asked (unreachable, timed out, refused, answered nonsense): the caller may retry later. */
export class ProviderUnavailable extends Error {
  override readonly name = 'ProviderUnavailable';
  constructor(
    message: string,
    /** False when waiting will not help (e.g. PayPal refuses our request as invalid): the operator must act. */
    readonly transient = true,
    /** The provider's own Retry-After, in seconds, when it gave one. */
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
}
