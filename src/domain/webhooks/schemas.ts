import { z } from 'zod';
import { text, typeError, withDefault, enumField } from '../memory/schemas.ts';
import { WEBHOOK_EVENT_TYPES } from './event-types.ts';
import { targetProblem } from './target.ts';

/** Bounds of the webhook surfaces (docs/webhooks.md, docs/security.md). */
export const WEBHOOK_LIMITS = {
  /** Endpoints per workspace, enabled or not. */
  endpoints: 16,
  url: 2048,
  description: 500,
  /** Endpoints or deliveries per page of a list. */
  listPage: 100,
  defaultListPage: 20,
  /** Attempts shown per delivery (the newest). */
  attemptsShown: 20,
} as const;

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export const DELIVERY_STATUS_MEANINGS: ReadonlyArray<{ code: DeliveryStatus; meaning: string }> = [
  { code: 'pending', meaning: 'Not delivered yet: waiting for its turn or its next retry.' },
  { code: 'delivered', meaning: 'The endpoint answered 2xx.' },
  {
    code: 'failed',
    meaning: 'Given up: the endpoint was disabled after failing for 3 days (a re-send may still deliver it).',
  },
];
export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export const ENDPOINT_STATUS_MEANINGS: ReadonlyArray<{ code: (typeof ENDPOINT_STATUSES)[number]; meaning: string }> = [
  { code: 'enabled', meaning: 'Events are delivered.' },
  {
    code: 'disabled',
    meaning:
      'No events are written for it; pending deliveries wait (disabled by someone) or were given up (disabled after 3 days of failures).',
  },
];

/**
 * A target URL: http(s), no credentials, no fragment, and (target.ts) https to a host that is not a private address
 * literal unless the operator's allow list names it. The address a name resolves to is checked at every delivery.
 */
const urlField = (allowedHosts: readonly string[]) =>
  z
    .string({ error: typeError('a string') })
    .max(WEBHOOK_LIMITS.url, `must be at most ${WEBHOOK_LIMITS.url} characters`)
    .transform((value, ctx) => {
      let u: URL | null = null;
      try {
        u = new URL(value.trim());
      } catch {
        /* refused below */
      }
      const message = !u
        ? 'must be an absolute URL such as https://example.com/hooks/risk'
        : u.protocol !== 'https:' && u.protocol !== 'http:'
          ? 'must be an https:// URL'
          : u.username || u.password
            ? 'must not carry a user name or password'
            : u.hash
              ? 'must not have a #fragment'
              : '';
      const problem = message || targetProblem(u!.href, allowedHosts);
      if (!problem) return u!.href;
      ctx.addIssue({ code: 'custom', message: problem, input: value });
      return z.NEVER;
    })
    .meta({
      description:
        'Where events are POSTed: an https:// URL on a public address (http:// and private addresses only for hosts the operator allows).',
      maxLength: WEBHOOK_LIMITS.url,
    });

const eventTypesField = z
  .array(enumField(WEBHOOK_EVENT_TYPES), { error: typeError('an array of event types') })
  .min(1, 'must name at least one event type')
  .max(WEBHOOK_EVENT_TYPES.length, `must have at most ${WEBHOOK_EVENT_TYPES.length} items`)
  .transform((types) => WEBHOOK_EVENT_TYPES.filter((t) => types.includes(t)))
  .meta({ description: `The event types delivered: one or more of ${WEBHOOK_EVENT_TYPES.join(', ')}.` });

const descriptionField = text(WEBHOOK_LIMITS.description)
  .transform((v) => v.trim())
  .meta({ description: `What the endpoint is for (at most ${WEBHOOK_LIMITS.description} characters).` });

export const idField = (what: string) =>
  z
    .number({ error: typeError('an integer') })
    .int('must be an integer')
    .min(1, `must be ${what} id`)
    .max(2_147_483_647, `must be ${what} id`)
    .meta({ description: `The ${what}'s id.` });

/** The schemas of endpoint changes, for the operator's allow list (WEBHOOK_ALLOWED_HOSTS). */
export const createEndpointSchema = (allowedHosts: readonly string[]) =>
  z.strictObject(
    {
      url: urlField(allowedHosts),
      eventTypes: eventTypesField,
      description: withDefault(
        descriptionField,
        '',
        `What the endpoint is for (at most ${WEBHOOK_LIMITS.description} characters).`,
      ),
    },
    { error: typeError('a JSON object') },
  );
export type CreateEndpointInput = z.output<ReturnType<typeof createEndpointSchema>>;

export const updateEndpointSchema = (allowedHosts: readonly string[]) =>
  z
    .strictObject(
      {
        id: idField('endpoint'),
        url: urlField(allowedHosts).optional(),
        eventTypes: eventTypesField.optional(),
        description: descriptionField.optional(),
      },
      { error: typeError('a JSON object') },
    )
    .superRefine((body, ctx) => {
      if (body.url === undefined && body.eventTypes === undefined && body.description === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [],
          message: 'must change at least one of url, event_types, description',
          input: body,
        });
      }
    });
export type UpdateEndpointInput = z.output<ReturnType<typeof updateEndpointSchema>>;

export const endpointIdSchema = z.strictObject({ id: idField('endpoint') }, { error: typeError('a JSON object') });
export const deliveryIdSchema = z.strictObject({ id: idField('delivery') }, { error: typeError('a JSON object') });

const pageSize = withDefault(
  z
    .number({ error: typeError('an integer') })
    .int('must be an integer')
    .min(1, `must be 1 to ${WEBHOOK_LIMITS.listPage}`)
    .max(WEBHOOK_LIMITS.listPage, `must be 1 to ${WEBHOOK_LIMITS.listPage}`),
  WEBHOOK_LIMITS.defaultListPage,
  `Items per page, 1 to ${WEBHOOK_LIMITS.listPage} (default ${WEBHOOK_LIMITS.defaultListPage}).`,
);
const cursorField = z
  .string({ error: typeError('a string') })
  .regex(/^[1-9]\d{0,9}$/, 'must be the next_cursor of a previous page')
  .transform(Number)
  .nullable()
  .optional();

export const endpointPageSchema = z.strictObject(
  { limit: pageSize, cursor: cursorField },
  { error: typeError('a JSON object') },
);

/** Deliveries newest first, optionally of one endpoint and one status. */
export const deliveryPageSchema = z.strictObject(
  {
    endpointId: idField('endpoint').nullable().optional(),
    status: enumField(DELIVERY_STATUSES).nullable().optional(),
    limit: pageSize,
    cursor: cursorField,
  },
  { error: typeError('a JSON object') },
);
export type DeliveryPageInput = z.output<typeof deliveryPageSchema>;
