import type { z } from 'zod';
import type { OverrideAudit, OverrideRule } from '../../generated/prisma/client.ts';
import type { AccountView } from '../../domain/accounts/accounts.ts';
import { createOverride, expireOverride, updateOverride, type Actor } from '../../domain/overrides/changes.ts';
import { listOverrides, overrideAudit, type Page } from '../../domain/overrides/reads.ts';
import {
  auditPageSchema,
  createOverrideSchema,
  expireOverrideSchema,
  listOverridesSchema,
  updateOverrideSchema,
  UPDATE_OVERRIDE_CLEARABLE,
} from '../../domain/overrides/schemas.ts';
import { changes, checkInput, given } from '../../domain/validation.ts';
import type { ErrorDetail } from '../../errors.ts';
import type { WebDeps } from './context.ts';

/**
 * What a signed-in account can do with its workspace's override rules: the one set of functions behind both the
 * Overrides page and /workspace/graphql. Each checks its input with the schema every other surface uses and calls
 * the domain's change functions with the account as the author and control_plane as the surface; nothing here
 * reads a request or checks CSRF (the transports do that first).
 */

/** The signed-in account as the author of a change (its e-mail, so the trail reads without a lookup). */
export const accountActor = (account: AccountView): Actor => ({
  kind: 'account',
  id: account.id,
  label: account.email,
});

/** The input as the schema reads it; refused with every problem named, the schema's and a form's own (`extra`), together. */
const parse = <S extends z.ZodType>(schema: S, input: unknown, extra: ErrorDetail[] = []): z.output<S> =>
  checkInput(schema, input, { problem: 'The rule is invalid', extra });

/** `extra`: problems the caller found in fields of its own (the page's "expires in"), refused with the schema's. */
export async function createRule(
  deps: WebDeps,
  account: AccountView,
  input: Record<string, unknown>,
  extra: ErrorDetail[] = [],
): Promise<OverrideRule> {
  return createOverride(
    deps.services,
    account.workspaceId,
    parse(createOverrideSchema, given(input), extra),
    accountActor(account),
    'control_plane',
  );
}

/** null reason or note: unchanged; a null expiresAt removes the expiry (as on GraphQL for API keys). */
export async function updateRule(
  deps: WebDeps,
  account: AccountView,
  input: Record<string, unknown>,
): Promise<OverrideRule> {
  const parsed = parse(updateOverrideSchema, changes(input, UPDATE_OVERRIDE_CLEARABLE));
  return updateOverride(deps.services, account.workspaceId, parsed, accountActor(account), 'control_plane');
}

/** not_found for another workspace's rule, as for one that never existed. */
export async function expireRule(deps: WebDeps, account: AccountView, id: unknown): Promise<OverrideRule> {
  return expireOverride(
    deps.services,
    account.workspaceId,
    parse(expireOverrideSchema, { id }).id,
    accountActor(account),
    'control_plane',
  );
}

export async function listRules(
  deps: WebDeps,
  account: AccountView,
  q: { state?: unknown; limit?: unknown; cursor?: unknown },
): Promise<Page<OverrideRule>> {
  return listOverrides(deps.services.prisma, account.workspaceId, parse(listOverridesSchema, given(q)));
}

export async function auditEntries(
  deps: WebDeps,
  account: AccountView,
  q: { limit?: unknown; cursor?: unknown; newestFirst?: boolean },
): Promise<Page<OverrideAudit>> {
  const { newestFirst, ...page } = q;
  return overrideAudit(deps.services.prisma, account.workspaceId, {
    ...parse(auditPageSchema, given(page)),
    newestFirst: newestFirst ?? false,
  });
}
