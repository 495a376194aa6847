import type { WebDeps } from './context.ts';
import type { AccountView } from '../../domain/accounts/accounts.ts';
import { createApiKey, listApiKeys, revokeApiKey, type KeyListing } from '../../domain/access/keys.ts';
import {
  requestSubscription,
  resendApproval,
  subscriptionOf,
  type SubscriptionView,
} from '../../domain/billing/subscriptions.ts';
import { sendAddressConfirmation, type RegistrationDeps } from '../../domain/accounts/registration.ts';
import type { Tier } from '../../domain/metering/tiers.ts';
import { AppError } from '../../errors.ts';
import { readUsage, type Usage } from './usage.ts';

/**
 * What a signed-in account can do in its workspace: the one set of functions behind both the
 * server-rendered pages (keys, subscription, usage) and the session GraphQL at /workspace/graphql.
 * Each takes the signed-in account; nothing here reads a request, renders, or checks CSRF
 * (the transports do that before calling).
 */

export type TierOffer = Tier & {
  /** A payment provider is configured and has a plan for this tier. */ requestable: boolean;
};
export type Me = { email: string; emailVerified: boolean; workspace: string; tier: Tier };
export type SubscriptionState = SubscriptionView & {
  /** Name of the configured payment provider; null when none is configured. */
  provider: string | null;
  /** False when SMTP is not configured: mail is held in the outbox and logged. */
  mailDelivered: boolean;
};
export type WorkspaceUsage = Usage & { tier: Tier };

const PREFIX = /^rk_[A-Za-z0-9]{8}$/; // the visible part of a key (key-format.ts)

export function me(deps: WebDeps, account: AccountView): Me {
  return {
    email: account.email,
    emailVerified: account.emailVerified,
    workspace: account.workspaceName,
    tier: deps.services.tiers.get(account.tier),
  };
}

/** What registration and address confirmation need, from the control plane's dependencies. */
export function accountDeps(deps: WebDeps): RegistrationDeps {
  return {
    prisma: deps.services.prisma,
    counters: deps.services.counters,
    mailer: deps.mailer,
    baseUrl: deps.config.baseUrl,
  };
}

/** E-mails a confirmation link to the account's unconfirmed address (rate_limited: once a minute). */
export async function sendConfirmationMail(deps: WebDeps, account: AccountView): Promise<void> {
  await sendAddressConfirmation(accountDeps(deps), account);
}

/** The workspace's keys, newest first (never a secret: only hashes are stored). */
export async function listKeys(deps: WebDeps, account: AccountView): Promise<KeyListing[]> {
  return (await listApiKeys(deps.services.prisma, { workspace: account.workspaceName })).reverse();
}

/** One key of the account's workspace; null for an unknown prefix or another workspace's key. */
export async function findKey(deps: WebDeps, account: AccountView, prefix: string): Promise<KeyListing | null> {
  if (!PREFIX.test(prefix)) return null;
  return (await listKeys(deps, account)).find((k) => k.prefix === prefix) ?? null;
}

/** Creates a key; the secret is in this answer and nowhere else. invalid_request for a bad name. */
export async function createKey(
  deps: WebDeps,
  account: AccountView,
  name: string,
): Promise<{ secret: string; key: KeyListing }> {
  const created = await createApiKey(deps.services.prisma, deps.pepper, {
    workspace: account.workspaceName,
    name,
    accountId: account.id,
  });
  deps.log.audit('api key created', {
    via: 'control plane',
    accountId: account.id,
    workspaceId: account.workspaceId,
    prefix: created.prefix,
    name,
  });
  const key = await findKey(deps, account, created.prefix);
  if (!key) throw new Error(`key ${created.prefix} vanished right after creation`);
  return { secret: created.secret, key };
}

/**
 * Revokes a key of the account's own workspace (idempotent), drops it from this process's key
 * cache and tells every other process. not_found for an unknown prefix and for another
 * workspace's key alike, so prefixes of other workspaces cannot be probed.
 */
export async function revokeKey(deps: WebDeps, account: AccountView, prefix: string): Promise<KeyListing> {
  if (!PREFIX.test(prefix)) throw new AppError('not_found', `No key with prefix ${prefix} in this workspace.`);
  const listing = await revokeApiKey(deps.services.prisma, prefix, account.workspaceId).catch((e) => {
    throw isNotFound(e) ? new AppError('not_found', `No key with prefix ${prefix} in this workspace.`) : e;
  });
  deps.verifier.invalidate(prefix);
  await deps.announce?.(`key:${prefix}`).catch((e) => deps.log.warn('revocation announce failed', { err: e }));
  deps.log.audit('api key revoked', {
    via: 'control plane',
    accountId: account.id,
    workspaceId: account.workspaceId,
    prefix,
  });
  return listing;
}

const isNotFound = (e: unknown) => e instanceof AppError && e.code === 'not_found';

/** Every tier, in catalogue order, marked with whether it can be requested on this server. */
export function tierOffers(deps: WebDeps): TierOffer[] {
  return deps.services.tiers.list().map((t) => ({ ...t, requestable: isRequestable(deps, t.code) }));
}

export function isRequestable(deps: WebDeps, tierCode: string): boolean {
  return Boolean(deps.billing.provider?.planFor(tierCode));
}

/** The workspace's current tier and its latest subscription request. */
export async function subscriptionState(deps: WebDeps, account: AccountView): Promise<SubscriptionState> {
  const view = await subscriptionOf(deps.billing, account);
  return { ...view, provider: deps.billing.provider?.name ?? null, mailDelivered: deps.mailer.delivers };
}

/** Creates a subscription request at the provider and e-mails its approval link (confirmed addresses only; throttled). */
export async function requestTier(deps: WebDeps, account: AccountView, tier: string): Promise<void> {
  await requestSubscription(deps.billing, account, tier);
}

/** Sends the approval e-mail of the pending request again (rate_limited: once a minute, counted from the last one). */
export async function resendApprovalMail(deps: WebDeps, account: AccountView): Promise<void> {
  await resendApproval(deps.billing, account);
}

/** Today's score and direct-report counts against the tier's limits, and 30 days of score calls in total and per key. */
export async function usageOf(deps: WebDeps, account: AccountView, nowMs = Date.now()): Promise<WorkspaceUsage> {
  const tier = deps.services.tiers.get(account.tier);
  return {
    tier,
    ...(await readUsage(deps.services.counters, account.workspaceId, tier, await listKeys(deps, account), nowMs)),
  };
}
