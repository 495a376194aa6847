import type { z } from 'zod';
import type { Watch } from '../../generated/prisma/client.ts';
import type { AccountView } from '../../domain/accounts/accounts.ts';
import type { Page } from '../../domain/overrides/reads.ts';
import { createWatch, deleteWatch, updateWatch } from '../../domain/watches/changes.ts';
import { listWatches } from '../../domain/watches/reads.ts';
import {
  createWatchSchema,
  deleteWatchSchema,
  listWatchesSchema,
  UPDATE_WATCH_CLEARABLE,
  updateWatchSchema,
} from '../../domain/watches/schemas.ts';
import { changes, checkInput, given } from '../../domain/validation.ts';
import type { WebDeps } from './context.ts';
import { accountActor } from './override-actions.ts';

/**
 * What a signed-in account can do with its workspace's watches: the one set of functions behind both the Watches
 * page and /workspace/graphql. Each checks its input with the schema every other surface uses and acts for the
 * session's workspace only; nothing here reads a request or checks CSRF (the transports do that first).
 */

const parse = <S extends z.ZodType>(schema: S, input: unknown): z.output<S> =>
  checkInput(schema, input, { problem: 'The watch is invalid' });

export async function createWatchFor(
  deps: WebDeps,
  account: AccountView,
  input: Record<string, unknown>,
): Promise<Watch> {
  return createWatch(
    deps.services.prisma,
    account.workspaceId,
    parse(createWatchSchema, given(input)),
    accountActor(account),
  );
}

/** A null scoreThreshold removes it; a null note is "unchanged" (as on GraphQL for API keys). */
export async function updateWatchFor(
  deps: WebDeps,
  account: AccountView,
  input: Record<string, unknown>,
): Promise<Watch> {
  return updateWatch(
    deps.services.prisma,
    account.workspaceId,
    parse(updateWatchSchema, changes(input, UPDATE_WATCH_CLEARABLE)),
  );
}

/** not_found for another workspace's watch, as for one that never existed. */
export async function deleteWatchFor(deps: WebDeps, account: AccountView, id: unknown): Promise<Watch> {
  return deleteWatch(deps.services.prisma, account.workspaceId, parse(deleteWatchSchema, { id }).id);
}

export async function listWatchesFor(
  deps: WebDeps,
  account: AccountView,
  q: { limit?: unknown; cursor?: unknown },
): Promise<Page<Watch>> {
  return listWatches(deps.services.prisma, account.workspaceId, parse(listWatchesSchema, given(q)));
}
