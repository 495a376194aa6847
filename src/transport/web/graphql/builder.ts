import SchemaBuilder from '@pothos/core';
import type { WebDeps } from '../context.ts';
import type { Session } from '../../../domain/accounts/sessions.ts';

/**
 * The control plane's own GraphQL schema (/workspace/graphql), built by a builder of its own:
 * none of its fields exist in the API-key schema at /graphql, and none of the API's exist here.
 */
export type WorkspaceGraphQLContext = {
  deps: WebDeps;
  /** The signed-in session; the transport refuses a request without one before execution. */
  session: Session;
  /** True when the request carried the session's CSRF token in X-CSRF-Token (mutations need it). */
  csrfOk: boolean;
  requestId: string;
};

type Types = {
  Context: WorkspaceGraphQLContext;
  Scalars: { DateTime: { Input: Date; Output: Date } };
  DefaultFieldNullability: false;
};

// No plugins. The Prisma plugin, loaded for the API's builder, declares its `prisma` option on
// every builder's option type; nothing reads it on a builder without the plugin.
const options = { defaultFieldNullability: false } as ConstructorParameters<typeof SchemaBuilder<Types>>[0];

export const builder = new SchemaBuilder<Types>(options);

builder.queryType({ description: 'What the signed-in account sees of its workspace. Every field needs a session (cookie rk_session); API keys are refused.' });
builder.mutationType({ description: 'Changes to the signed-in account\'s workspace. Every mutation needs the session\'s CSRF token in the X-CSRF-Token header (see `csrfToken`).' });

builder.scalarType('DateTime', {
  description: 'An ISO 8601 timestamp with UTC offset, e.g. 2026-11-23T10:04:00.000Z.',
  serialize: (value) => (value as Date).toISOString(),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new TypeError('DateTime must be an ISO 8601 timestamp');
    return date;
  },
});
