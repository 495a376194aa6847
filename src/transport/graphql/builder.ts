import SchemaBuilder from '@pothos/core';
import { GraphQLError, Kind } from 'graphql';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import type PrismaTypes from '../../generated/pothos-types.ts';
import { getDatamodel } from '../../generated/pothos-types.ts';
import { workspaceDbOf } from '../http/request-context.ts';
import type { GraphContext } from './context.ts';
import { decodeNodeId, encodeNodeId } from './node-id.ts';
import { inDateRange } from '../../domain/validation.ts';
import type { ListSize } from './cost.ts';
import { loadNodes } from './nodes.ts';

/**
 * Builder configuration only; each type lives in its own file under ./types. The one builder of both graphs:
 * /graphql (roots Query and Mutation) and /workspace/graphql (roots WorkspaceQuery and WorkspaceMutation, declared
 * in web/graphql/roots.ts), each a sub-graph of its schema (sub-graph.ts).
 */
export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: GraphContext;
  Scalars: { DateTime: { Input: Date; Output: Date } };
  DefaultFieldNullability: false;
}>({
  plugins: [RelayPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  relay: {
    clientMutationId: 'omit',
    nodesOnConnection: { description: "The items of this page (the edges' nodes, without cursors)." },
    cursorType: 'String',
    encodeGlobalID: encodeNodeId,
    decodeGlobalID: decodeNodeId,
    nodeTypeOptions: { description: 'An object with a global id, fetchable with `node(id:)`.' },
    pageInfoTypeOptions: { description: 'Where a page of a connection sits in the whole list.' },
    nodeQueryOptions: {
      description:
        "Any Subject, Report or Rating of the calling workspace by global id (null for an unknown id or another workspace's).",
      nullable: true,
      args: { id: { description: 'A global id (`id` of a Subject, Report or Rating).' } },
    },
    nodesQueryOptions: {
      description:
        'Several nodes by global id (at most 100), in the order given (null for each unknown or foreign id).',
      nullable: { list: false, items: true },
      args: { ids: { description: 'Global ids (`id` of Subjects, Reports or Ratings), at most 100.' } },
      extensions: { list: { countArg: 'ids', limit: 'maxNodeIds' } satisfies ListSize },
      resolve: (_root, args, ctx, info) => loadNodes(args.ids, ctx, info),
    },
    idFieldOptions: { description: 'Global id: opaque, stable, usable with `node(id:)`.' },
    hasNextPageFieldOptions: { description: 'True when more items follow this page.' },
    hasPreviousPageFieldOptions: { description: 'True when items precede this page.' },
    startCursorFieldOptions: { description: 'Cursor of the first item of the page.' },
    endCursorFieldOptions: { description: 'Cursor of the last item of the page.' },
    cursorFieldOptions: { description: 'Opaque position of this item; pass as `after`/`before`.' },
    nodeFieldOptions: { description: 'The item.' },
    edgesFieldOptions: { description: 'The items of this page with their cursors.' },
    pageInfoFieldOptions: { description: 'Paging state of this page.' },
    firstArgOptions: { description: 'Page size from the start (at most 100).' },
    lastArgOptions: { description: 'Page size from the end (at most 100).' },
    afterArgOptions: { description: 'Return items after this cursor.' },
    beforeArgOptions: { description: 'Return items before this cursor.' },
  },
  prisma: {
    // Relation and node fallbacks load through the workspace-scoped client: see scope.ts.
    client: (ctx) => workspaceDbOf(ctx),
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
    // Connections answer at most 100 items per page; the cost limits reject larger requests first.
    maxConnectionSize: 100,
    defaultConnectionSize: 20,
  },
});

builder.queryType({ description: "Reads of the calling workspace's memory. Every field requires an API key." });
builder.mutationType({
  description: "Writebacks into the calling workspace's memory (free: never counted against the score quota).",
});

/** DateTime input: a string JavaScript reads as a date, in the years 1-9999. */
function parseDateTime(value: unknown): Date {
  // GraphQLErrors (not TypeErrors) mark these as the client's input: answered as invalid, not masked as internal.
  const date = typeof value === 'string' ? new Date(value) : new Date(NaN);
  if (Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 timestamp string');
  if (!inDateRange(date)) throw new GraphQLError('DateTime must be in the years 1-9999');
  return date;
}

builder.scalarType('DateTime', {
  description: 'An ISO 8601 timestamp with UTC offset, e.g. 2026-11-23T10:04:00.000Z.',
  serialize: (value) => (value as Date).toISOString(),
  parseValue: parseDateTime,
  parseLiteral: (ast) => parseDateTime(ast.kind === Kind.STRING ? ast.value : null),
});
