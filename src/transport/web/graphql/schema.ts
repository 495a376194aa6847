import type { GraphQLSchema } from 'graphql';
import { builder } from '../../graphql/builder.ts';
import '../../graphql/schema.ts'; // the API graph first: every type the two graphs share is registered by its files
import { subGraph } from '../../graphql/sub-graph.ts';
import { actingAccount, signedIn, WorkspaceMutation, WorkspaceQuery } from './roots.ts';
import { KEY_STATUSES, type KeyListing } from '../../../domain/access/keys.ts';
import type { Tier } from '../../../domain/metering/tiers.ts';
import {
  createKey,
  isRequestable,
  listKeys,
  me,
  requestTier,
  resendApprovalMail,
  revokeKey,
  sendConfirmationMail,
  subscriptionState,
  tierOffers,
  usageOf,
  type Me,
  type SubscriptionState,
  type WorkspaceUsage,
} from '../workspace-actions.ts';
import type { KeyUsage } from '../usage.ts';
import {
  REQUESTS_PER_ACCOUNT_PER_DAY,
  SUBSCRIPTION_STATUSES,
  type SubscriptionStatus,
} from '../../../domain/billing/subscriptions.ts';
import { enumValues } from '../../graphql/enum-values.ts';
import { completeMutationWrites } from '../../graphql/mutation-writes.ts';
import { MAIL_PER_ADDRESS_PER_DAY } from '../../../domain/mail/mail-limit.ts';
import './overrides.ts'; // the override rule fields, registered on the builder before the graph is built below
import './watches.ts'; // the watch fields, likewise
import './webhooks.ts'; // the webhook endpoint and delivery fields, likewise

/**
 * Types and resolvers of /workspace/graphql. Every resolver calls the same function of
 * workspace-actions.ts as the matching page, with the session's account: the pages and this
 * schema cannot drift apart.
 */

const ApiKeyStatus = builder.enumType('ApiKeyStatus', {
  description: 'Whether an API key still works.',
  values: enumValues(KEY_STATUSES),
});
const SubscriptionStatusEnum = builder.enumType('SubscriptionStatus', {
  description: 'State of a subscription request.',
  values: enumValues(SUBSCRIPTION_STATUSES),
});

const TierType = builder.objectRef<Tier>('Tier').implement({
  description: 'An API subscription tier (its limits apply to every key of a workspace on it).',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'Tier code, e.g. free, developer, startup.' }),
    name: t.exposeString('name', { description: 'Display name.' }),
    scoreEligible: t.exposeBoolean('scoreEligible', {
      description: 'True when the tier includes the metered `score` call.',
    }),
    dailyLimit: t.exposeInt('dailyLimit', { description: 'Successful `score` calls per UTC day.' }),
    burstPerSecond: t.exposeInt('burstPerSecond', { description: 'Most `score` calls per API key per clock second.' }),
    directReportDailyLimit: t.exposeInt('directReportLimit', {
      description: 'Direct report page views (/workspace/reports/…) per UTC day.',
    }),
    agentDailyLimit: t.exposeInt('agentDailyLimit', {
      description: 'Successful `score_ip` calls on the agent-protocol (MCP) surface per UTC day.',
    }),
    priceCents: t.exposeInt('priceCents', { description: 'Price per month in US cents.' }),
    requestable: t.boolean({
      description:
        'True when this server has a payment provider plan for the tier, so `requestSubscription` accepts it.',
      resolve: (tier, _a, ctx) => isRequestable(signedIn(ctx).deps, tier.code),
    }),
  }),
});

const MeType = builder.objectRef<Me>('Me').implement({
  description: 'The signed-in account.',
  fields: (t) => ({
    email: t.exposeString('email', { description: "The account's e-mail address (lower-cased)." }),
    emailVerified: t.exposeBoolean('emailVerified', {
      description:
        'True once the owner confirmed the address through an e-mailed link. Until then only confirmation links are sent to it (`sendEmailConfirmation`); `requestSubscription` answers email_unverified.',
    }),
    workspace: t.exposeString('workspace', {
      description: "Name of the account's workspace (the one its keys belong to).",
    }),
    tier: t.field({ type: TierType, description: "The workspace's current tier.", resolve: (m) => m.tier }),
  }),
});

const ApiKeyType = builder.objectRef<KeyListing>('ApiKey').implement({
  description: 'An API key of the workspace. Never its secret: only a hash is stored.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Label chosen when the key was created.' }),
    prefix: t.exposeString('prefix', {
      description: 'Visible, non-secret start of the key (`rk_` and 8 characters); names the key in `revokeApiKey`.',
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When the key was created.',
      resolve: (k) => new Date(k.created_at),
    }),
    lastUsedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'When the key last authenticated a call (written in batches, up to about 10 s late); null when never used.',
      resolve: (k) => (k.last_used_at ? new Date(k.last_used_at) : null),
    }),
    revokedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the key was revoked; null while active.',
      resolve: (k) => (k.revoked_at ? new Date(k.revoked_at) : null),
    }),
    status: t.expose('status', { type: ApiKeyStatus, description: 'Whether the key still works.' }),
  }),
});

const CreatedApiKey = builder.objectRef<{ secret: string; key: KeyListing }>('CreatedApiKey').implement({
  description: 'A key just created: the only answer that ever carries its secret.',
  fields: (t) => ({
    secret: t.exposeString('secret', {
      description: 'The whole key, to send in X-API-Key or Authorization: Bearer. Shown once: it cannot be read again.',
    }),
    key: t.field({ type: ApiKeyType, description: 'The new key as it appears in `apiKeys`.', resolve: (c) => c.key }),
  }),
});

type RequestShape = NonNullable<SubscriptionState['request']>;
const SubscriptionRequestType = builder.objectRef<RequestShape>('SubscriptionRequest').implement({
  description: 'A request to move the workspace to a paid tier, confirmed by the buyer at the payment provider.',
  fields: (t) => ({
    orderCode: t.exposeString('orderCode', {
      description: 'Our order code (RK-…), also in the approval e-mail and at the provider.',
    }),
    tier: t.field({
      type: TierType,
      description: 'The tier requested.',
      resolve: (r, _a, ctx) => signedIn(ctx).deps.services.tiers.get(r.tier),
    }),
    status: t.field({
      type: SubscriptionStatusEnum,
      description: 'Where the request stands.',
      resolve: (r) => r.status as SubscriptionStatus,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When the request was made.', resolve: (r) => r.createdAt }),
    lastMailSentAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the approval e-mail was last queued for sending; null before the first.',
      resolve: (r) => r.lastEmailAt,
    }),
  }),
});

const SubscriptionStateType = builder.objectRef<SubscriptionState>('SubscriptionState').implement({
  description: "The workspace's current tier and its latest subscription request.",
  fields: (t) => ({
    tier: t.field({
      type: TierType,
      description: 'The tier in force now.',
      resolve: (s, _a, ctx) => signedIn(ctx).deps.services.tiers.get(s.tier),
    }),
    latestRequest: t.field({
      type: SubscriptionRequestType,
      nullable: true,
      description: 'The most recent request, whatever its status; null when none was made.',
      resolve: (s) => s.request,
    }),
    provider: t.exposeString('provider', {
      nullable: true,
      description: 'Name of the payment provider; null when none is configured (no tier can be requested).',
    }),
    mailDelivered: t.exposeBoolean('mailDelivered', {
      description:
        'False when the server has no SMTP_URL: approval e-mails are held in the outbox and logged instead of sent.',
    }),
  }),
});

const QuotaUsageType = builder.objectRef<{ used_today: number; daily_limit: number }>('QuotaUsage').implement({
  description: 'One daily quota today (UTC day).',
  fields: (t) => ({
    usedToday: t.exposeInt('used_today', { description: 'Counted so far today.' }),
    dailyLimit: t.exposeInt('daily_limit', { description: "The tier's limit per UTC day." }),
    remaining: t.int({
      description: 'max(0, dailyLimit − usedToday).',
      resolve: (q) => Math.max(0, q.daily_limit - q.used_today),
    }),
  }),
});

const DailyUsageType = builder.objectRef<{ day: string; used: number }>('DailyUsage').implement({
  description: 'Successful `score` calls of one UTC day.',
  fields: (t) => ({
    date: t.string({
      description: 'The UTC day, YYYY-MM-DD.',
      resolve: (d) => `${d.day.slice(0, 4)}-${d.day.slice(4, 6)}-${d.day.slice(6)}`,
    }),
    used: t.exposeInt('used', { description: 'Successful `score` calls that day.' }),
  }),
});

/** Each day of the usage window, paired with a count of that day. */
const daysOf = (u: WorkspaceUsage, used: number[]) => u.days.map((d, i) => ({ day: d.day, used: used[i] ?? 0 }));

const KeyUsageType = builder.objectRef<{ key: KeyUsage; usage: WorkspaceUsage }>('KeyUsage').implement({
  description: "One API key's successful `score` calls over the usage window.",
  fields: (t) => ({
    prefix: t.string({ description: "The key's public prefix (rk_…).", resolve: (k) => k.key.prefix }),
    name: t.string({ description: "The key's label.", resolve: (k) => k.key.name }),
    status: t.string({ description: '`active` or `revoked`.', resolve: (k) => k.key.status }),
    total: t.int({
      description: 'Successful `score` calls with this key over the window.',
      resolve: (k) => k.key.total,
    }),
    days: t.field({
      type: [DailyUsageType],
      description: 'Per UTC day, oldest first, today last (aligned with Usage.days).',
      resolve: (k) => daysOf(k.usage, k.key.used),
    }),
  }),
});

const UsageType = builder.objectRef<WorkspaceUsage>('Usage').implement({
  description: "The workspace's quota use (counts reset at 00:00 UTC).",
  fields: (t) => ({
    tier: t.field({ type: TierType, description: 'The tier whose limits apply.', resolve: (u) => u.tier }),
    score: t.field({
      type: QuotaUsageType,
      description: "The API's metered `score` calls today.",
      resolve: (u) => u.score,
    }),
    directReport: t.field({
      type: QuotaUsageType,
      description: 'Direct report page views today (a separate quota).',
      resolve: (u) => u.direct_report,
    }),
    agent: t.field({
      type: QuotaUsageType,
      description: "The agent-protocol (MCP) surface's metered `score_ip` calls today (a separate quota).",
      resolve: (u) => u.agent,
    }),
    days: t.field({
      type: [DailyUsageType],
      description: 'Daily `score` calls over the last 30 UTC days, oldest first, today last.',
      resolve: (u) => u.days,
    }),
    byKey: t.field({
      type: [KeyUsageType],
      description:
        'The same calls per API key: keys with calls in the window (most calls first), then unused active keys.',
      resolve: (u) => u.by_key.map((key) => ({ key, usage: u })),
    }),
    notAttributed: t.field({
      type: [DailyUsageType],
      description:
        'Per day, the calls no key in `byKey` accounts for (made before per-key counting existed, or by keys beyond the 50 most recently used).',
      resolve: (u) => daysOf(u, u.not_attributed),
    }),
  }),
});

builder.objectFields(WorkspaceQuery, (t) => ({
  me: t.field({
    type: MeType,
    description: 'The signed-in account and its workspace.',
    resolve: (_r, _a, ctx) => me(...actingAccount(ctx)),
  }),
  csrfToken: t.string({
    description:
      "The session's CSRF token. Send it in the X-CSRF-Token header with every mutation (the pages send it as the `_csrf` form field).",
    resolve: (_r, _a, ctx) => signedIn(ctx).session.csrfToken,
  }),
  apiKeys: t.field({
    type: [ApiKeyType],
    description: "The workspace's API keys, newest first, revoked ones included.",
    resolve: (_r, _a, ctx) => listKeys(...actingAccount(ctx)),
  }),
  tiers: t.field({
    type: [TierType],
    description: 'Every tier, cheapest first.',
    resolve: (_r, _a, ctx) => tierOffers(signedIn(ctx).deps),
  }),
  subscription: t.field({
    type: SubscriptionStateType,
    description: 'Current tier and the latest subscription request.',
    resolve: (_r, _a, ctx) => subscriptionState(...actingAccount(ctx)),
  }),
  usage: t.field({
    type: UsageType,
    description: "Today's score, direct-report and agent (MCP) use against the limits, and 30 days of score calls.",
    resolve: (_r, _a, ctx) => usageOf(...actingAccount(ctx)),
  }),
}));

builder.objectFields(WorkspaceMutation, (t) => ({
  createApiKey: t.field({
    type: CreatedApiKey,
    description: 'Creates an API key in the workspace. The answer carries the secret once; only its hash is stored.',
    args: { name: t.arg.string({ required: true, description: 'A label, 1–80 printable characters (trimmed).' }) },
    resolve: (_r, args, ctx) => createKey(...actingAccount(ctx), args.name),
  }),
  revokeApiKey: t.field({
    type: ApiKeyType,
    description:
      "Revokes a key of the workspace: every call with it is refused from then on (in every process within KEY_CACHE_TTL_MS). Revoking twice keeps the first time. Another workspace's prefix answers not_found.",
    args: { prefix: t.arg.string({ required: true, description: "The key's prefix, as listed in `apiKeys`." }) },
    resolve: (_r, args, ctx) => revokeKey(...actingAccount(ctx), args.prefix),
  }),
  requestSubscription: t.field({
    type: SubscriptionStateType,
    description: `Requests a tier: creates the subscription at the payment provider and e-mails the approval link to the account's address. The tier applies once the provider confirms. Needs a confirmed address (email_unverified otherwise); at most ${REQUESTS_PER_ACCOUNT_PER_DAY} a day per account and ${MAIL_PER_ADDRESS_PER_DAY} e-mails a day per address (rate_limited with Retry-After otherwise).`,
    args: { tier: t.arg.string({ required: true, description: 'Code of a tier whose `requestable` is true.' }) },
    resolve: async (_r, args, ctx) => {
      await requestTier(...actingAccount(ctx), args.tier);
      return subscriptionState(...actingAccount(ctx));
    },
  }),
  resendApprovalMail: t.field({
    type: SubscriptionStateType,
    description:
      "Sends the approval e-mail of the pending request again; at most once a minute, counted from that request's last approval e-mail, its first included (rate_limited with Retry-After otherwise).",
    resolve: async (_r, _a, ctx) => {
      await resendApprovalMail(...actingAccount(ctx));
      return subscriptionState(...actingAccount(ctx));
    },
  }),
  sendEmailConfirmation: t.field({
    type: MeType,
    description:
      "E-mails a confirmation link to the account's unconfirmed address (accounts made before confirmation existed). At most once a minute (rate_limited with Retry-After); invalid_request when the address is confirmed already.",
    resolve: async (_r, _a, ctx) => {
      await sendConfirmationMail(...actingAccount(ctx));
      return me(...actingAccount(ctx));
    },
  }),
}));

/** The session graph served by /workspace/graphql: the one builder's schema, from the workspace roots. */
export const workspaceSchema: GraphQLSchema = completeMutationWrites(
  subGraph(builder.toSchema(), { query: 'WorkspaceQuery', mutation: 'WorkspaceMutation' }),
);
