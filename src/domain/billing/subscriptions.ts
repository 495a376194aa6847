import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { CounterStore } from '../../platform/counters/types.ts';
import type { Logger } from '../../platform/log.ts';
import type { Mailer } from '../mail/outbox.ts';
import type { AccountView } from '../accounts/accounts.ts';
import type { TierCatalog } from '../metering/tiers.ts';
import { ProviderUnavailable, type PaymentProvider } from './provider.ts';
import type { ProviderCancellations } from './cancellations.ts';
import { AppError } from '../../errors.ts';
import { approvalMail } from './approval-mail.ts';
import { admitMail } from '../mail/mail-limit.ts';
import { inWords, throttle } from '../throttle.ts';

/**
 * API subscription requests and their states (docs/control-plane.md); the transitions are in webhook-events.ts.
 */
export const SUBSCRIPTION_STATUSES = [
  { code: 'pending', meaning: "Created at the payment provider, waiting for the buyer's approval." },
  { code: 'active', meaning: "The provider confirmed it: the workspace's tier is this request's tier." },
  { code: 'payment_failed', meaning: 'A renewal payment failed; the tier stays while the provider retries.' },
  {
    code: 'suspended',
    meaning: 'The provider suspended it (payments failed for good); the workspace is back on the free tier.',
  },
  {
    code: 'cancelled',
    meaning: 'Cancelled or expired at the provider (final); the workspace is back on the free tier.',
  },
  // Its cancellation at the provider is retried until it succeeds (ProviderCancellation); that CANCELLED event keeps the tier.
  {
    code: 'superseded',
    meaning: 'Another request of the workspace became active later; this one is cancelled at the provider.',
  },
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number]['code'];

export type BillingDeps = {
  prisma: PrismaClient;
  provider: PaymentProvider | null;
  mailer: Mailer;
  counters: CounterStore;
  tiers: TierCatalog;
  baseUrl: string;
  log: Logger;
  /** Called after a workspace's tier changed: drop cached keys here and in every process. */
  tierChanged: () => Promise<void>;
  /** Sends superseded subscriptions' cancellations to the provider (null without a provider). */
  cancellations: Pick<ProviderCancellations, 'kick'> | null;
};

/** Each request creates a subscription at the provider: at most this many per account per UTC day. */
export const REQUESTS_PER_ACCOUNT_PER_DAY = 5;
const DAY_MS = 86_400_000;

export type SubscriptionView = {
  tier: string;
  dailyLimit: number;
  request: null | {
    orderCode: string;
    tier: string;
    status: string;
    approvalUrl: string;
    lastEmailAt: Date | null;
    createdAt: Date;
  };
};

export async function subscriptionOf(
  deps: Pick<BillingDeps, 'prisma' | 'tiers'>,
  account: AccountView,
): Promise<SubscriptionView> {
  const ws = await deps.prisma.workspace.findUniqueOrThrow({ where: { id: account.workspaceId } });
  const r = await deps.prisma.subscriptionRequest.findFirst({
    where: { workspaceId: account.workspaceId },
    orderBy: { id: 'desc' },
  });
  return {
    tier: ws.tier,
    dailyLimit: deps.tiers.get(ws.tier).dailyLimit,
    request: r && {
      orderCode: r.orderCode,
      tier: r.tier,
      status: r.status,
      approvalUrl: r.approvalUrl,
      lastEmailAt: r.lastEmailAt,
      createdAt: r.createdAt,
    },
  };
}

/**
 * Creates a subscription at the provider and e-mails its approval link. Only to a confirmed address, and
 * throttled before the provider is called: REQUESTS_PER_ACCOUNT_PER_DAY per account, and the address's
 * daily mail budget (mail-limit.ts). The request's e-mail starts its order's minute: a resend waits for it.
 */
export async function requestSubscription(
  deps: BillingDeps,
  account: AccountView,
  tierCode: string,
  nowMs = Date.now(),
) {
  if (!deps.provider)
    throw new AppError('service_unavailable', 'No payment provider is configured on this server (PAYPAL_* settings).');
  const tier = deps.tiers.list().find((t) => t.code === tierCode);
  const planId = tier && deps.provider.planFor(tier.code);
  if (!tier || !planId)
    throw new AppError(
      'invalid_request',
      `Tier "${tierCode}" cannot be requested; choose one of: ${deps.tiers
        .list()
        .filter((t) => deps.provider!.planFor(t.code))
        .map((t) => t.code)
        .join(', ')}.`,
    );
  requireConfirmedAddress(account);
  await throttle(
    deps.counters,
    `rl:{subreq:acct:${account.id}}`,
    REQUESTS_PER_ACCOUNT_PER_DAY,
    DAY_MS,
    (s) =>
      `This account has made ${REQUESTS_PER_ACCOUNT_PER_DAY} subscription requests today, the most in one day; try again in ${inWords(s)}.`,
    nowMs,
  );
  const orderCode = `RK-${randomBytes(5).toString('hex').toUpperCase()}`;
  await admitMail(deps.counters, account.email, 'approval', orderCode, nowMs);
  const created = await deps.provider
    .createSubscription({
      planId,
      orderCode,
      email: account.email,
      returnUrl: `${deps.baseUrl}/workspace/subscription`,
      cancelUrl: `${deps.baseUrl}/workspace/subscription`,
    })
    .catch((e) => {
      throw e instanceof ProviderUnavailable ? providerDown(deps.log, deps.provider!.name, e, orderCode) : e;
    });
  const row = await deps.prisma.subscriptionRequest.create({
    data: {
      workspaceId: account.workspaceId,
      accountId: account.id,
      tier: tier.code,
      planId,
      orderCode,
      providerId: created.providerId,
      approvalUrl: created.approvalUrl,
      status: 'pending',
    },
  });
  await sendApproval(deps, account, row.id);
  return { orderCode, tier: tier.code, approvalUrl: created.approvalUrl };
}

/** Seconds a user is asked to wait after a provider failure, unless the provider named its own wait. */
const PROVIDER_RETRY_AFTER_S = 60;

/**
 * The provider failed a request: not our bug, and nothing was recorded, so the user may simply try again.
 * 503 service_unavailable with Retry-After; the log keeps the provider's own answer (a warning while it is
 * down, an error when it refuses us, which the operator must fix).
 */
function providerDown(log: Logger, provider: string, e: ProviderUnavailable, orderCode: string): AppError {
  log[e.transient ? 'warn' : 'error']('payment provider unavailable; subscription not requested', {
    orderCode,
    transient: e.transient,
    err: e.message,
  });
  const wait = e.retryAfterS ?? PROVIDER_RETRY_AFTER_S;
  return new AppError(
    'service_unavailable',
    `The payment provider (${provider}) is unavailable right now, so no subscription was requested and nothing was charged. Try again in ${wait} seconds.`,
    undefined,
    undefined,
    { 'retry-after': String(wait) },
  );
}

/** Re-sends the approval e-mail of the workspace's latest pending request: at most one a minute, counted from the last one sent. */
export async function resendApproval(deps: BillingDeps, account: AccountView, nowMs = Date.now()) {
  const r = await deps.prisma.subscriptionRequest.findFirst({
    where: { workspaceId: account.workspaceId },
    orderBy: { id: 'desc' },
  });
  if (r?.status !== 'pending')
    throw new AppError('invalid_request', 'There is no pending subscription request to send again.');
  requireConfirmedAddress(account);
  await admitMail(deps.counters, account.email, 'approval', r.orderCode, nowMs);
  await sendApproval(deps, account, r.id);
}

function requireConfirmedAddress(account: AccountView) {
  if (!account.emailVerified) {
    throw new AppError(
      'email_unverified',
      `Confirm your e-mail address (${account.email}) first: approval links are sent only to confirmed addresses. Ask for the confirmation link on the subscription page (or with the sendEmailConfirmation mutation).`,
    );
  }
}

async function sendApproval(deps: BillingDeps, account: AccountView, requestId: number) {
  const r = await deps.prisma.subscriptionRequest.findUniqueOrThrow({ where: { id: requestId } });
  const tier = deps.tiers.get(r.tier);
  await deps.mailer.enqueue(
    approvalMail(account.email, {
      orderCode: r.orderCode,
      tierName: tier.name,
      dailyLimit: tier.dailyLimit,
      approvalUrl: r.approvalUrl,
      provider: deps.provider?.name ?? 'the payment provider',
    }),
  );
  await deps.prisma.subscriptionRequest.update({ where: { id: r.id }, data: { lastEmailAt: new Date() } });
}
