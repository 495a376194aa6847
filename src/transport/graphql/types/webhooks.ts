import { builder } from '../builder.ts';
import { textCost, type ListSize } from '../cost.ts';
import { enumValues } from '../enum-values.ts';
import { viewerOf, type RequestContext } from '../../http/request-context.ts';
import { checkInput, given } from '../../../domain/validation.ts';
import type { WebhookAttempt, WebhookEndpoint } from '../../../generated/prisma/client.ts';
import type { Page, EndpointWithSecret } from '../../../domain/webhooks/endpoints.ts';
import {
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  setEndpointEnabled,
  updateEndpoint,
} from '../../../domain/webhooks/endpoints.ts';
import {
  listDeliveries,
  resendDelivery,
  sendTestEvent,
  type DeliveryView,
} from '../../../domain/webhooks/deliveries.ts';
import {
  DELIVERY_STATUS_MEANINGS,
  ENDPOINT_STATUS_MEANINGS,
  WEBHOOK_LIMITS,
  createEndpointSchema,
  deliveryIdSchema,
  deliveryPageSchema,
  endpointIdSchema,
  endpointPageSchema,
  updateEndpointSchema,
} from '../../../domain/webhooks/schemas.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../domain/webhooks/event-types.ts';
import { EXCERPT_BYTES } from '../../../domain/webhooks/send.ts';

/**
 * Webhook endpoints and their deliveries on GraphQL for API keys (docs/webhooks.md). The key's workspace only: an id
 * of another workspace answers not_found. The secret is in the answer of create and rotate only.
 */
const EndpointStatusEnum = builder.enumType('WebhookEndpointStatus', {
  description: 'Whether events are delivered to an endpoint.',
  values: enumValues(ENDPOINT_STATUS_MEANINGS),
});
export const DeliveryStatusEnum = builder.enumType('WebhookDeliveryStatus', {
  description: 'Where a delivery stands.',
  values: enumValues(DELIVERY_STATUS_MEANINGS),
});
const EVENT_TYPES = `One or more of ${WEBHOOK_EVENT_TYPES.join(', ')}.`;

export const EndpointRef = builder.objectRef<WebhookEndpoint>('WebhookEndpoint').implement({
  description:
    "Where the workspace's events are POSTed, signed (docs/webhooks.md). The signing secret is never shown here.",
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Endpoint id.' }),
    url: t.exposeString('url', { description: 'The target URL.', extensions: { cost: textCost(WEBHOOK_LIMITS.url) } }),
    eventTypes: t.exposeStringList('eventTypes', { description: `The event types delivered. ${EVENT_TYPES}` }),
    description: t.exposeString('description', {
      description: 'What it is for.',
      extensions: { cost: textCost(WEBHOOK_LIMITS.description) },
    }),
    status: t.field({
      type: EndpointStatusEnum,
      description: 'enabled or disabled.',
      resolve: (e) => e.status as never,
    }),
    disabledReason: t.exposeString('disabledReason', {
      nullable: true,
      description: 'Why it is disabled (by whom, or after 3 days of failures).',
      extensions: { cost: textCost(1000) },
    }),
    failingSince: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'The first failure of the current run of failures; null while deliveries succeed. At 3 days the endpoint is disabled.',
      resolve: (e) => e.failingSince,
    }),
    previousSecretValidUntil: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'After a rotation: until when the previous secret also signs.',
      resolve: (e) => (e.previousSecretUntil && e.previousSecretUntil > new Date() ? e.previousSecretUntil : null),
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (e) => e.createdAt }),
  }),
});

export const EndpointSecretRef = builder.objectRef<EndpointWithSecret>('WebhookEndpointWithSecret').implement({
  description: 'An endpoint and its signing secret, shown this once (after creation or rotation).',
  fields: (t) => ({
    endpoint: t.field({ type: EndpointRef, description: 'The endpoint.', resolve: (e) => e.endpoint }),
    secret: t.exposeString('secret', {
      description: 'The signing secret (whsec_...). Store it now: it is never shown again.',
    }),
  }),
});

const AttemptRef = builder.objectRef<WebhookAttempt>('WebhookAttempt').implement({
  description: 'One HTTP attempt of a delivery.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Attempt id.' }),
    startedAt: t.field({ type: 'DateTime', description: 'When it started.', resolve: (a) => a.startedAt }),
    latencyMs: t.exposeInt('latencyMs', { description: 'Milliseconds until the answer (or the failure).' }),
    httpStatus: t.exposeInt('httpStatus', {
      nullable: true,
      description: "The receiver's HTTP status; null when none came (timeout, refused connection, refused address).",
    }),
    error: t.exposeString('error', {
      nullable: true,
      description: 'Why it failed; null on a 2xx.',
      extensions: { cost: textCost(500) },
    }),
    responseExcerpt: t.exposeString('responseExcerpt', {
      description: `The first ${EXCERPT_BYTES} bytes of the response body at most.`,
      extensions: { cost: textCost(EXCERPT_BYTES) },
    }),
    manual: t.exposeBoolean('manual', {
      description: 'true for a re-send or test asked for by someone; false for a scheduled attempt.',
    }),
  }),
});

export const DeliveryRef = builder.objectRef<DeliveryView>('WebhookDelivery').implement({
  description: 'One event on its way to one endpoint, with its attempts.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Delivery id.' }),
    eventId: t.string({
      description: "The event's id (evt_...), the same on every attempt and re-send: receivers deduplicate on it.",
      resolve: (d) => d.event.publicId,
    }),
    eventType: t.string({ description: "The event's type.", resolve: (d) => d.event.type }),
    endpointId: t.exposeInt('endpointId', { description: 'The endpoint.' }),
    endpointUrl: t.string({
      description: "The endpoint's URL now.",
      resolve: (d) => d.endpoint.url,
      extensions: { cost: textCost(WEBHOOK_LIMITS.url) },
    }),
    status: t.field({
      type: DeliveryStatusEnum,
      description: 'pending, delivered or failed.',
      resolve: (d) => d.status as never,
    }),
    attemptCount: t.exposeInt('attempts', { description: 'Attempts made so far (scheduled and manual).' }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: "pending: when it is tried next (once the endpoint's older deliveries are through).",
      resolve: (d) => (d.status === 'pending' ? d.nextAttemptAt : null),
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When the event was written.', resolve: (d) => d.createdAt }),
    deliveredAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When a 2xx came.',
      resolve: (d) => d.deliveredAt,
    }),
    attempts: t.field({
      type: [AttemptRef],
      description: `The newest attempts first (at most ${WEBHOOK_LIMITS.attemptsShown}).`,
      resolve: (d) => d.attemptsLog,
      extensions: { list: { max: WEBHOOK_LIMITS.attemptsShown } satisfies ListSize },
    }),
  }),
});

const listSize = { max: WEBHOOK_LIMITS.listPage } satisfies ListSize;
export const EndpointPageRef = builder.objectRef<Page<WebhookEndpoint>>('WebhookEndpointPage').implement({
  description: 'One page of endpoints, oldest first.',
  fields: (t) => ({
    nodes: t.expose('items', {
      type: [EndpointRef],
      description: 'The endpoints of the page.',
      extensions: { list: listSize },
    }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'Pass as after: for the next page; null on the last page.',
    }),
  }),
});
export const DeliveryPageRef = builder.objectRef<Page<DeliveryView>>('WebhookDeliveryPage').implement({
  description: 'One page of deliveries, newest first.',
  fields: (t) => ({
    nodes: t.expose('items', {
      type: [DeliveryRef],
      description: 'The deliveries of the page.',
      extensions: { list: listSize },
    }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'Pass as after: for the next page; null on the last page.',
    }),
  }),
});

export const CreateInput = builder.inputType('CreateWebhookEndpointInput', {
  description: 'A new webhook endpoint (docs/webhooks.md).',
  fields: (t) => ({
    url: t.string({
      required: true,
      description:
        'An https:// URL on a public address (http:// and private addresses only for hosts the operator allows).',
    }),
    eventTypes: t.stringList({ required: true, description: EVENT_TYPES }),
    description: t.string({ description: `What it is for (at most ${WEBHOOK_LIMITS.description} characters).` }),
  }),
});
export const UpdateInput = builder.inputType('UpdateWebhookEndpointInput', {
  description: 'What changes of an endpoint; absent or null: unchanged.',
  fields: (t) => ({
    id: t.int({ required: true, description: "The endpoint's id." }),
    url: t.string({ description: 'New URL.' }),
    eventTypes: t.stringList({ description: `New event types. ${EVENT_TYPES}` }),
    description: t.string({ description: 'New description.' }),
  }),
});

const deps = (ctx: RequestContext) => ctx.services.webhooks.webhookDeps;
const workspaceOf = (ctx: RequestContext) => viewerOf(ctx).workspaceId;
const endpointId = (id: number) => checkInput(endpointIdSchema, { id }).id;
const keyLabel = (ctx: RequestContext) => {
  const v = viewerOf(ctx);
  return `API key ${v.keyName} (${v.keyPrefix})`;
};

builder.queryField('webhookEndpoints', (t) =>
  t.field({
    type: EndpointPageRef,
    description: `The workspace's webhook endpoints, oldest first (free; at most ${WEBHOOK_LIMITS.endpoints}).`,
    args: {
      first: t.arg.int({
        description: `Endpoints per page, 1-${WEBHOOK_LIMITS.listPage} (default ${WEBHOOK_LIMITS.defaultListPage}).`,
      }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
    },
    resolve: (_r, args, ctx) =>
      listEndpoints(
        ctx.services,
        workspaceOf(ctx),
        checkInput(endpointPageSchema, given({ limit: args.first, cursor: args.after })),
      ),
  }),
);

builder.queryField('webhookDeliveries', (t) =>
  t.field({
    type: DeliveryPageRef,
    description: "The workspace's webhook deliveries with their attempts, newest first (free).",
    args: {
      endpointId: t.arg.int({ description: "Only this endpoint's." }),
      status: t.arg({ type: DeliveryStatusEnum, description: 'Only deliveries in this status.' }),
      first: t.arg.int({
        description: `Deliveries per page, 1-${WEBHOOK_LIMITS.listPage} (default ${WEBHOOK_LIMITS.defaultListPage}).`,
      }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
    },
    resolve: (_r, args, ctx) =>
      listDeliveries(
        ctx.services,
        workspaceOf(ctx),
        checkInput(
          deliveryPageSchema,
          given({ endpointId: args.endpointId, status: args.status, limit: args.first, cursor: args.after }),
        ),
      ),
  }),
);

builder.mutationField('createWebhookEndpoint', (t) =>
  t.field({
    type: EndpointSecretRef,
    description: `Create a webhook endpoint (free; at most ${WEBHOOK_LIMITS.endpoints} per workspace). The answer holds its signing secret, shown this once.`,
    args: { input: t.arg({ type: CreateInput, required: true, description: 'The endpoint.' }) },
    resolve: (_r, args, ctx) =>
      createEndpoint(
        deps(ctx),
        workspaceOf(ctx),
        checkInput(createEndpointSchema(deps(ctx).allowedHosts), given(args.input)),
      ),
  }),
);

builder.mutationField('updateWebhookEndpoint', (t) =>
  t.field({
    type: EndpointRef,
    description: "Change an endpoint's URL, event types or description (free).",
    args: { input: t.arg({ type: UpdateInput, required: true, description: 'The endpoint and what changes.' }) },
    resolve: (_r, args, ctx) =>
      updateEndpoint(
        deps(ctx),
        workspaceOf(ctx),
        checkInput(updateEndpointSchema(deps(ctx).allowedHosts), given(args.input)),
      ),
  }),
);

builder.mutationField('rotateWebhookEndpointSecret', (t) =>
  t.field({
    type: EndpointSecretRef,
    description:
      'Give an endpoint a new signing secret, shown this once; the previous one keeps signing too for 24 h (free).',
    args: { id: t.arg.int({ required: true, description: "The endpoint's id." }) },
    resolve: (_r, args, ctx) => rotateEndpointSecret(deps(ctx), workspaceOf(ctx), endpointId(args.id)),
  }),
);

builder.mutationField('disableWebhookEndpoint', (t) =>
  t.field({
    type: EndpointRef,
    description: 'Stop delivering to an endpoint; its pending deliveries wait until it is enabled again (free).',
    args: { id: t.arg.int({ required: true, description: "The endpoint's id." }) },
    resolve: (_r, args, ctx) =>
      setEndpointEnabled(deps(ctx), workspaceOf(ctx), endpointId(args.id), false, keyLabel(ctx)),
  }),
);

builder.mutationField('enableWebhookEndpoint', (t) =>
  t.field({
    type: EndpointRef,
    description: 'Deliver to an endpoint again (its failure run starts afresh) (free).',
    args: { id: t.arg.int({ required: true, description: "The endpoint's id." }) },
    resolve: (_r, args, ctx) =>
      setEndpointEnabled(deps(ctx), workspaceOf(ctx), endpointId(args.id), true, keyLabel(ctx)),
  }),
);

builder.mutationField('deleteWebhookEndpoint', (t) =>
  t.field({
    type: EndpointRef,
    description: 'Delete an endpoint with its deliveries and their attempts; answers the endpoint as it was (free).',
    args: { id: t.arg.int({ required: true, description: "The endpoint's id." }) },
    resolve: (_r, args, ctx) => deleteEndpoint(deps(ctx), workspaceOf(ctx), endpointId(args.id)),
  }),
);

builder.mutationField('resendWebhookDelivery', (t) =>
  t.field({
    type: DeliveryRef,
    description:
      'Send a delivery again now, whatever its status, and answer it with the new (manual) attempt (free; waits up to 10 s for the receiver).',
    args: { id: t.arg.int({ required: true, description: "The delivery's id." }) },
    resolve: (_r, args, ctx) =>
      resendDelivery(deps(ctx), workspaceOf(ctx), checkInput(deliveryIdSchema, { id: args.id }).id),
  }),
);

builder.mutationField('sendWebhookTestEvent', (t) =>
  t.field({
    type: DeliveryRef,
    description:
      'Send an endpoint.test event to an endpoint now, once, and answer its delivery (free; waits up to 10 s for the receiver).',
    args: { endpointId: t.arg.int({ required: true, description: "The endpoint's id." }) },
    resolve: (_r, args, ctx) => sendTestEvent(deps(ctx), workspaceOf(ctx), endpointId(args.endpointId)),
  }),
);
