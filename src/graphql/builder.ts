import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import type PrismaTypes from '../generated/pothos-types.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import type { GraphQLContext } from './context.ts';

/** Builder configuration only; each type lives in its own file under ./types. */
export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: GraphQLContext;
  Scalars: { DateTime: { Input: Date; Output: Date } };
  DefaultFieldNullability: false;
}>({
  plugins: [PrismaPlugin],
  defaultFieldNullability: false,
  prisma: {
    // Each app instance owns its database, so the client comes from the request context.
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
});

builder.queryType({ description: 'Reads of the calling workspace\'s memory. Every field requires an API key.' });
builder.mutationType({ description: 'Writebacks into the calling workspace\'s memory (free: never counted against the score quota).' });

builder.scalarType('DateTime', {
  description: 'An ISO 8601 timestamp with UTC offset, e.g. 2026-11-23T10:04:00.000Z.',
  serialize: (value) => (value as Date).toISOString(),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new TypeError('DateTime must be an ISO 8601 timestamp');
    return date;
  },
});
