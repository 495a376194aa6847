import type { z } from 'zod';
import type { WebhookEndpoint } from '../../generated/prisma/client.ts';
import type { AccountView } from '../../domain/accounts/accounts.ts';
import {
  createEndpoint,
  deleteEndpoint,
  endpointOf,
  listEndpoints,
  rotateEndpointSecret,
  setEndpointEnabled,
  updateEndpoint,
  type EndpointWithSecret,
  type Page,
} from '../../domain/webhooks/endpoints.ts';
import { listDeliveries, resendDelivery, sendTestEvent, type DeliveryView } from '../../domain/webhooks/deliveries.ts';
import {
  createEndpointSchema,
  deliveryIdSchema,
  deliveryPageSchema,
  endpointIdSchema,
  endpointPageSchema,
  updateEndpointSchema,
} from '../../domain/webhooks/schemas.ts';
import { checkInput, given } from '../../domain/validation.ts';
import type { WebDeps } from './context.ts';

/**
 * What a signed-in account can do with its workspace's webhook endpoints and deliveries: the one set of functions
 * behind the Webhooks and Deliveries pages and /workspace/graphql. Each checks its input with the schema GraphQL for
 * API keys uses and calls the domain for the account's workspace; CSRF and sessions are the transports' business.
 */
const parse = <S extends z.ZodType>(schema: S, input: unknown): z.output<S> =>
  checkInput(schema, input, { problem: 'The webhook request is invalid' });
const deps = (d: WebDeps) => d.services.webhooks.webhookDeps;
const endpointId = (id: unknown) => parse(endpointIdSchema, { id }).id;

export const createHook = (d: WebDeps, a: AccountView, input: Record<string, unknown>): Promise<EndpointWithSecret> =>
  createEndpoint(deps(d), a.workspaceId, parse(createEndpointSchema(deps(d).allowedHosts), given(input)));
export const updateHook = (d: WebDeps, a: AccountView, input: Record<string, unknown>): Promise<WebhookEndpoint> =>
  updateEndpoint(deps(d), a.workspaceId, parse(updateEndpointSchema(deps(d).allowedHosts), given(input)));
export const rotateHook = (d: WebDeps, a: AccountView, id: unknown): Promise<EndpointWithSecret> =>
  rotateEndpointSecret(deps(d), a.workspaceId, endpointId(id));
export const enableHook = (d: WebDeps, a: AccountView, id: unknown, enabled: boolean): Promise<WebhookEndpoint> =>
  setEndpointEnabled(deps(d), a.workspaceId, endpointId(id), enabled, a.email);
export const deleteHook = (d: WebDeps, a: AccountView, id: unknown): Promise<WebhookEndpoint> =>
  deleteEndpoint(deps(d), a.workspaceId, endpointId(id));
export const testHook = (d: WebDeps, a: AccountView, id: unknown): Promise<DeliveryView> =>
  sendTestEvent(deps(d), a.workspaceId, endpointId(id));
export const resendHook = (d: WebDeps, a: AccountView, id: unknown): Promise<DeliveryView> =>
  resendDelivery(deps(d), a.workspaceId, parse(deliveryIdSchema, { id }).id);
/** One endpoint of the workspace (not_found for another workspace's); its secret is the caller's never to show. */
export const hookOf = (d: WebDeps, a: AccountView, id: unknown): Promise<WebhookEndpoint> =>
  endpointOf(d.services.prisma, a.workspaceId, endpointId(id));
export const hooksOf = (
  d: WebDeps,
  a: AccountView,
  q: { limit?: unknown; cursor?: unknown },
): Promise<Page<WebhookEndpoint>> => listEndpoints(d.services, a.workspaceId, parse(endpointPageSchema, given(q)));
export const deliveriesOf = (
  d: WebDeps,
  a: AccountView,
  q: { endpointId?: unknown; status?: unknown; limit?: unknown; cursor?: unknown },
): Promise<Page<DeliveryView>> => listDeliveries(d.services, a.workspaceId, parse(deliveryPageSchema, given(q)));
