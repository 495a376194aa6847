import { builder } from '../../graphql/builder.ts';
import { WEBHOOK_LIMITS } from '../../../domain/webhooks/schemas.ts';
import {
  CreateInput,
  DeliveryPageRef,
  DeliveryRef,
  DeliveryStatusEnum,
  EndpointPageRef,
  EndpointRef,
  EndpointSecretRef,
  UpdateInput,
} from '../../graphql/types/webhooks.ts';
import {
  createHook,
  deleteHook,
  deliveriesOf,
  enableHook,
  hooksOf,
  resendHook,
  rotateHook,
  testHook,
  updateHook,
} from '../webhook-actions.ts';
import { actingAccount, WorkspaceMutation, WorkspaceQuery } from './roots.ts';

/** Webhook endpoints and deliveries on /workspace/graphql: the API graph's types, run through webhook-actions.ts. */

builder.objectFields(WorkspaceQuery, (t) => ({
  webhookEndpoints: t.field({
    type: EndpointPageRef,
    description: `The workspace's webhook endpoints, oldest first (at most ${WEBHOOK_LIMITS.endpoints}).`,
    args: {
      first: t.arg.int({
        description: `Endpoints per page, 1-${WEBHOOK_LIMITS.listPage} (default ${WEBHOOK_LIMITS.defaultListPage}).`,
      }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
    },
    resolve: (_r, args, ctx) => hooksOf(...actingAccount(ctx), { limit: args.first, cursor: args.after }),
  }),
  webhookDeliveries: t.field({
    type: DeliveryPageRef,
    description: "The workspace's webhook deliveries with their attempts, newest first.",
    args: {
      endpointId: t.arg.int({ description: "Only this endpoint's." }),
      status: t.arg({ type: DeliveryStatusEnum, description: 'Only deliveries in this status.' }),
      first: t.arg.int({
        description: `Deliveries per page, 1-${WEBHOOK_LIMITS.listPage} (default ${WEBHOOK_LIMITS.defaultListPage}).`,
      }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
    },
    resolve: (_r, args, ctx) =>
      deliveriesOf(...actingAccount(ctx), {
        endpointId: args.endpointId,
        status: args.status,
        limit: args.first,
        cursor: args.after,
      }),
  }),
}));

builder.objectFields(WorkspaceMutation, (t) => ({
  createWebhookEndpoint: t.field({
    type: EndpointSecretRef,
    description: `Creates a webhook endpoint (at most ${WEBHOOK_LIMITS.endpoints} per workspace). The answer holds its signing secret, shown this once.`,
    args: { input: t.arg({ type: CreateInput, required: true, description: 'The endpoint.' }) },
    resolve: (_r, args, ctx) => createHook(...actingAccount(ctx), { ...args.input }),
  }),
  updateWebhookEndpoint: t.field({
    type: EndpointRef,
    description: "Changes an endpoint's URL, event types or description.",
    args: { input: t.arg({ type: UpdateInput, required: true, description: 'The endpoint and what changes.' }) },
    resolve: (_r, args, ctx) => updateHook(...actingAccount(ctx), { ...args.input }),
  }),
  rotateWebhookEndpointSecret: t.field({
    type: EndpointSecretRef,
    description:
      'Gives an endpoint a new signing secret, shown this once; the previous one keeps signing too for 24 h.',
    args: { id: t.arg.int({ required: true, description: "The endpoint's id." }) },
    resolve: (_r, args, ctx) => rotateHook(...actingAccount(ctx), args.id),
  }),
  disableWebhookEndpoint: t.field({
    type: EndpointRef,
    description: 'Stops delivering to an endpoint; its pending deliveries wait until it is enabled again.',
    args: { id: t.arg.int({ required: true, description: "The endpoint's id." }) },
    resolve: (_r, args, ctx) => enableHook(...actingAccount(ctx), args.id, false),
  }),
  enableWebhookEndpoint: t.field({
    type: EndpointRef,
    description: 'Delivers to an endpoint again (its failure run starts afresh).',
    args: { id: t.arg.int({ required: true, description: "The endpoint's id." }) },
    resolve: (_r, args, ctx) => enableHook(...actingAccount(ctx), args.id, true),
  }),
  deleteWebhookEndpoint: t.field({
    type: EndpointRef,
    description: 'Deletes an endpoint with its deliveries and their attempts; answers the endpoint as it was.',
    args: { id: t.arg.int({ required: true, description: "The endpoint's id." }) },
    resolve: (_r, args, ctx) => deleteHook(...actingAccount(ctx), args.id),
  }),
  resendWebhookDelivery: t.field({
    type: DeliveryRef,
    description:
      'Sends a delivery again now, whatever its status, and answers it with the new (manual) attempt (waits up to 10 s for the receiver).',
    args: { id: t.arg.int({ required: true, description: "The delivery's id." }) },
    resolve: (_r, args, ctx) => resendHook(...actingAccount(ctx), args.id),
  }),
  sendWebhookTestEvent: t.field({
    type: DeliveryRef,
    description:
      'Sends an endpoint.test event to an endpoint now, once, and answers its delivery (waits up to 10 s for the receiver).',
    args: { endpointId: t.arg.int({ required: true, description: "The endpoint's id." }) },
    resolve: (_r, args, ctx) => testHook(...actingAccount(ctx), args.endpointId),
  }),
}));
