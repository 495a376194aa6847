import { z } from 'zod';
import { parsePrismaCursor } from '@pothos/plugin-prisma';
import { typeError } from '../../../domain/memory/schemas.ts';

/**
 * Paging of the analyst graph's connections for the read tools: the cursors are the GraphQL connections' own
 * (opaque, holding an item's position, so writes between two pages never shift or repeat items), checked before
 * the query runs so a mangled cursor is the caller's invalid_request naming the argument, not a failed query.
 */
export function cursorArg(description: string) {
  return z
    .string({ error: typeError('a string') })
    .check((ctx) => {
      try {
        parsePrismaCursor(ctx.value);
      } catch {
        ctx.issues.push({
          code: 'custom',
          input: ctx.value,
          message: 'is not a cursor this server returned: pass a next_cursor from an earlier answer',
        });
      }
    })
    .optional()
    .meta({ description });
}

export function pageSizeArg(max: number, fallback: number, description: string) {
  const message = `must be an integer from 1 to ${max}`;
  return z
    .number({ error: typeError(`an integer from 1 to ${max}`) })
    .int({ error: message })
    .min(1, { error: message })
    .max(max, { error: message })
    .default(fallback)
    .meta({ description: `${description} (1-${max}, default ${fallback}).` });
}

export type Connection<T> = {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  nodes: T[];
};

/** A connection as the tools answer it: the count over all pages, the cursor of the next page (null on the last), the items. */
export function pageOf<T, U>(c: Connection<T>, shape: (node: T) => U) {
  return {
    total_count: c.totalCount,
    next_cursor: c.pageInfo.hasNextPage ? c.pageInfo.endCursor : null,
    items: c.nodes.map(shape),
  };
}

/** The GraphQL selection every connection of these tools reads. */
export const PAGE_FIELDS = 'totalCount pageInfo { hasNextPage endCursor }';

export function pageSchema(item: object) {
  return {
    type: 'object',
    required: ['total_count', 'next_cursor', 'items'],
    properties: {
      total_count: { type: 'integer', description: 'Items over all pages.' },
      next_cursor: {
        type: ['string', 'null'],
        description: 'Pass it back to read the next page; null on the last page.',
      },
      items: { type: 'array', items: item },
    },
  };
}
