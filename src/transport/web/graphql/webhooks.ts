import { builder } from './builder.ts';
import { enumValues } from '../../graphql/enum-values.ts';
import type { WebhookAttempt, WebhookEndpoint } from '../../../generated/prisma/client.ts';
import type { Page, EndpointWithSecret } from '../../../domain/webhooks/endpoints.ts';
import type { DeliveryView } from '../../../domain/webhooks/deliveries.ts';
import { DELIVERY_STATUS_MEANINGS, ENDPOINT_STATUS_MEANINGS, WEBHOOK_LIMITS } from '../../../domain/webhooks/schemas.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../domain/webhooks/event-types.ts';
import { EXCERPT_BYTES } from '../../../domain/webhooks/send.ts';
import { createHook, deleteHook, deliveriesOf, enableHook, hooksOf, resendHook, rotateHook, testHook, updateHook } from '../webhook-actions.ts';

/**
 * Webhook endpoints and deliveries on /workspace/graphql: the fields of GraphQL for API keys (same names, arguments
 * and errors), run through webhook-actions.ts for the signed-in account's workspace. The types are declared again
 * only because this schema has a builder of its own; their values and meanings come from the domain.
 */
const EndpointStatusEnum = builder.enumType('WebhookEndpointStatus', { description: 'Whether events are delivered to an endpoint.', values: enumValues(ENDPOINT_STATUS_MEANINGS) });
const DeliveryStatusEnum = builder.enumType('WebhookDeliveryStatus', { description: 'Where a delivery stands.', values: enumValues(DELIVERY_STATUS_MEANINGS) });
const EVENT_TYPES = `One or more of ${WEBHOOK_EVENT_TYPES.join(', ')}.`;

const EndpointRef = builder.objectRef<WebhookEndpoint>('WebhookEndpoint').implement({
  description: 'Where the workspace\'s events are POSTed, signed (docs/webhooks.md). The signing secret is never shown here.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Endpoint id.' }),
    url: t.exposeString('url', { description: 'The target URL.' }),
    eventTypes: t.exposeStringList('eventTypes', { description: `The event types delivered. ${EVENT_TYPES}` }),
    description: t.exposeString('description', { description: 'What it is for.' }),
    status: t.field({ type: EndpointStatusEnum, description: 'enabled or disabled.', resolve: (e) => e.status as never }),
    disabledReason: t.exposeString('disabledReason', { nullable: true, description: 'Why it is disabled (by whom, or after 3 days of failures).' }),
    failingSince: t.field({ type: 'DateTime', nullable: true, description: 'The first failure of the current run of failures; null while deliveries succeed. At 3 days the endpoint is disabled.', resolve: (e) => e.failingSince }),
    previousSecretValidUntil: t.field({ type: 'DateTime', nullable: true, description: 'After a rotation: until when the previous secret also signs.', resolve: (e) => (e.previousSecretUntil && e.previousSecretUntil > new Date() ? e.previousSecretUntil : null) }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (e) => e.createdAt }),
  }),
});

const EndpointSecretRef = builder.objectRef<EndpointWithSecret>('WebhookEndpointWithSecret').implement({
  description: 'An endpoint and its signing secret, shown this once (after creation or rotation).',
  fields: (t) => ({
    endpoint: t.field({ type: EndpointRef, description: 'The endpoint.', resolve: (e) => e.endpoint }),
    secret: t.exposeString('secret', { description: 'The signing secret (whsec_...). Store it now: it is never shown again.' }),
  }),
});

const AttemptRef = builder.objectRef<WebhookAttempt>('WebhookAttempt').implement({
  description: 'One HTTP attempt of a delivery.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Attempt id.' }),
    startedAt: t.field({ type: 'DateTime', description: 'When it started.', resolve: (a) => a.startedAt }),
    latencyMs: t.exposeInt('latencyMs', { description: 'Milliseconds until the answer (or the failure).' }),
    httpStatus: t.exposeInt('httpStatus', { nullable: true, description: 'The receiver\'s HTTP status; null when none came (timeout, refused connection, refused address).' }),
    error: t.exposeString('error', { nullable: true, description: 'Why it failed; null on a 2xx.' }),
    responseExcerpt: t.exposeString('responseExcerpt', { description: `The first ${EXCERPT_BYTES} bytes of the response body at most.` }),
    manual: t.exposeBoolean('manual', { description: 'true for a re-send or test asked for by someone; false for a scheduled attempt.' }),
  }),
});

const DeliveryRef = builder.objectRef<DeliveryView>('WebhookDelivery').implement({
  description: 'One event on its way to one endpoint, with its attempts.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Delivery id.' }),
    eventId: t.string({ description: 'The event\'s id (evt_...), the same on every attempt and re-send: receivers deduplicate on it.', resolve: (d) => d.event.publicId }),
    eventType: t.string({ description: 'The event\'s type.', resolve: (d) => d.event.type }),
    endpointId: t.exposeInt('endpointId', { description: 'The endpoint.' }),
    endpointUrl: t.string({ description: 'The endpoint\'s URL now.', resolve: (d) => d.endpoint.url }),
    status: t.field({ type: DeliveryStatusEnum, description: 'pending, delivered or failed.', resolve: (d) => d.status as never }),
    attemptCount: t.exposeInt('attempts', { description: 'Attempts made so far (scheduled and manual).' }),
    nextAttemptAt: t.field({ type: 'DateTime', nullable: true, description: 'pending: when it is tried next (once the endpoint\'s older deliveries are through).', resolve: (d) => (d.status === 'pending' ? d.nextAttemptAt : null) }),
    createdAt: t.field({ type: 'DateTime', description: 'When the event was written.', resolve: (d) => d.createdAt }),
    deliveredAt: t.field({ type: 'DateTime', nullable: true, description: 'When a 2xx came.', resolve: (d) => d.deliveredAt }),
    attempts: t.field({ type: [AttemptRef], description: `The newest attempts first (at most ${WEBHOOK_LIMITS.attemptsShown}).`, resolve: (d) => d.attemptsLog }),
  }),
});

const EndpointPageRef = builder.objectRef<Page<WebhookEndpoint>>('WebhookEndpointPage').implement({
  description: 'One page of endpoints, oldest first.',
  fields: (t) => ({
    nodes: t.expose('items', { type: [EndpointRef], description: 'The endpoints of the page.' }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Pass as after: for the next page; null on the last page.' }),
  }),
});
const DeliveryPageRef = builder.objectRef<Page<DeliveryView>>('WebhookDeliveryPage').implement({
  description: 'One page of deliveries, newest first.',
  fields: (t) => ({
    nodes: t.expose('items', { type: [DeliveryRef], description: 'The deliveries of the page.' }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Pass as after: for the next page; null on the last page.' }),
  }),
});

const CreateInput = builder.inputType('CreateWebhookEndpointInput', {
  description: 'A new webhook endpoint (docs/webhooks.md).',
  fields: (t) => ({
    url: t.string({ required: true, description: 'An https:// URL on a public address (http:// and private addresses only for hosts the operator allows).' }),
    eventTypes: t.stringList({ required: true, description: EVENT_TYPES }),
    description: t.string({ description: `What it is for (at most ${WEBHOOK_LIMITS.description} characters).` }),
  }),
});
const UpdateInput = builder.inputType('UpdateWebhookEndpointInput', {
  description: 'What changes of an endpoint; absent or null: unchanged.',
  fields: (t) => ({
    id: t.int({ required: true, description: 'The endpoint\'s id.' }),
    url: t.string({ description: 'New URL.' }),
    eventTypes: t.stringList({ description: `New event types. ${EVENT_TYPES}` }),
    description: t.string({ description: 'New description.' }),
  }),
});

builder.queryFields((t) => ({
  webhookEndpoints: t.field({
    type: EndpointPageRef,
    description: `The workspace's webhook endpoints, oldest first (at most ${WEBHOOK_LIMITS.endpoints}).`,
    args: {
      first: t.arg.int({ description: `Endpoints per page, 1-${WEBHOOK_LIMITS.listPage} (default ${WEBHOOK_LIMITS.defaultListPage}).` }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
    },
    resolve: (_r, args, ctx) => hooksOf(ctx.deps, ctx.session.account, { limit: args.first, cursor: args.after }),
  }),
  webhookDeliveries: t.field({
    type: DeliveryPageRef,
    description: 'The workspace\'s webhook deliveries with their attempts, newest first.',
    args: {
      endpointId: t.arg.int({ description: 'Only this endpoint\'s.' }),
      status: t.arg({ type: DeliveryStatusEnum, description: 'Only deliveries in this status.' }),
      first: t.arg.int({ description: `Deliveries per page, 1-${WEBHOOK_LIMITS.listPage} (default ${WEBHOOK_LIMITS.defaultListPage}).` }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
    },
    resolve: (_r, args, ctx) => deliveriesOf(ctx.deps, ctx.session.account, { endpointId: args.endpointId, status: args.status, limit: args.first, cursor: args.after }),
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: EndpointSecretRef,
    description: `Creates a webhook endpoint (at most ${WEBHOOK_LIMITS.endpoints} per workspace). The answer holds its signing secret, shown this once.`,
    args: { input: t.arg({ type: CreateInput, required: true, description: 'The endpoint.' }) },
    resolve: (_r, args, ctx) => createHook(ctx.deps, ctx.session.account, { ...args.input }),
  }),
  updateWebhookEndpoint: t.field({
    type: EndpointRef,
    description: 'Changes an endpoint\'s URL, event types or description.',
    args: { input: t.arg({ type: UpdateInput, required: true, description: 'The endpoint and what changes.' }) },
    resolve: (_r, args, ctx) => updateHook(ctx.deps, ctx.session.account, { ...args.input }),
  }),
  rotateWebhookEndpointSecret: t.field({
    type: EndpointSecretRef,
    description: 'Gives an endpoint a new signing secret, shown this once; the previous one keeps signing too for 24 h.',
    args: { id: t.arg.int({ required: true, description: 'The endpoint\'s id.' }) },
    resolve: (_r, args, ctx) => rotateHook(ctx.deps, ctx.session.account, args.id),
  }),
  disableWebhookEndpoint: t.field({
    type: EndpointRef,
    description: 'Stops delivering to an endpoint; its pending deliveries wait until it is enabled again.',
    args: { id: t.arg.int({ required: true, description: 'The endpoint\'s id.' }) },
    resolve: (_r, args, ctx) => enableHook(ctx.deps, ctx.session.account, args.id, false),
  }),
  enableWebhookEndpoint: t.field({
    type: EndpointRef,
    description: 'Delivers to an endpoint again (its failure run starts afresh).',
    args: { id: t.arg.int({ required: true, description: 'The endpoint\'s id.' }) },
    resolve: (_r, args, ctx) => enableHook(ctx.deps, ctx.session.account, args.id, true),
  }),
  deleteWebhookEndpoint: t.field({
    type: EndpointRef,
    description: 'Deletes an endpoint with its deliveries and their attempts; answers the endpoint as it was.',
    args: { id: t.arg.int({ required: true, description: 'The endpoint\'s id.' }) },
    resolve: (_r, args, ctx) => deleteHook(ctx.deps, ctx.session.account, args.id),
  }),
  resendWebhookDelivery: t.field({
    type: DeliveryRef,
    description: 'Sends a delivery again now, whatever its status, and answers it with the new (manual) attempt (waits up to 10 s for the receiver).',
    args: { id: t.arg.int({ required: true, description: 'The delivery\'s id.' }) },
    resolve: (_r, args, ctx) => resendHook(ctx.deps, ctx.session.account, args.id),
  }),
  sendWebhookTestEvent: t.field({
    type: DeliveryRef,
    description: 'Sends an endpoint.test event to an endpoint now, once, and answers its delivery (waits up to 10 s for the receiver).',
    args: { endpointId: t.arg.int({ required: true, description: 'The endpoint\'s id.' }) },
    resolve: (_r, args, ctx) => testHook(ctx.deps, ctx.session.account, args.endpointId),
  }),
}));
