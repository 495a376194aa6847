import { AppError } from '../../errors.ts';

/**
 * Global ids are `base64url("<Type>:<database id>")`. They carry no workspace: a foreign id
 * decodes fine and then finds nothing, because every load goes through the workspace-scoped
 * client (scope.ts), so `node(id:)` answers null exactly as for an id that never existed.
 */
export function encodeNodeId(typename: string, id: bigint | number | string): string {
  return Buffer.from(`${typename}:${String(id)}`, 'utf8').toString('base64url');
}

/** The types `node(id:)` can load (the schema's Node implementations; a test keeps the two equal). */
export const NODE_TYPES: ReadonlySet<string> = new Set(['Subject', 'Report', 'Rating']);
/** Their database ids are PostgreSQL `integer`s: a larger number was never issued (and would fail the query). */
const MAX_DATABASE_ID = 2_147_483_647;

/**
 * Only ids this API could have issued decode: a known node type and an id in range. Anything
 * else ("ApiKey:1", "Report:9999999999") is invalid_request, never a lookup of a type the graph
 * does not expose (which the relay plugin answers with an internal error).
 */
export function decodeNodeId(globalId: string): { typename: string; id: string } {
  const text = Buffer.from(globalId, 'base64url').toString('utf8');
  const colon = text.indexOf(':');
  const typename = text.slice(0, colon);
  const id = text.slice(colon + 1);
  if (colon < 1 || !NODE_TYPES.has(typename) || !/^[1-9][0-9]{0,9}$/.test(id) || Number(id) > MAX_DATABASE_ID) {
    throw new AppError('invalid_request', `"${globalId.slice(0, 80)}" is not a global id returned by this API.`, [
      { field: 'id', message: 'not a global id' },
    ]);
  }
  return { typename, id };
}
