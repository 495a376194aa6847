import { AppError } from '../errors.ts';

/**
 * Global ids are `base64url("<Type>:<database id>")`. They carry no workspace: a foreign id
 * decodes fine and then finds nothing, because every load goes through the workspace-scoped
 * client (scope.ts), so `node(id:)` answers null exactly as for an id that never existed.
 */
export function encodeNodeId(typename: string, id: bigint | number | string): string {
  return Buffer.from(`${typename}:${String(id)}`, 'utf8').toString('base64url');
}

export function decodeNodeId(globalId: string): { typename: string; id: string } {
  const text = Buffer.from(globalId, 'base64url').toString('utf8');
  const colon = text.indexOf(':');
  const typename = text.slice(0, colon);
  const id = text.slice(colon + 1);
  if (colon < 1 || !/^[A-Za-z]+$/.test(typename) || !/^[1-9][0-9]{0,9}$/.test(id)) {
    throw new AppError('invalid_request', `"${globalId.slice(0, 80)}" is not a global id returned by this API.`, [{ field: 'id', message: 'not a global id' }]);
  }
  return { typename, id };
}
