import type { PrismaClient, OverrideRule, OverrideAudit } from '../../generated/prisma/client.ts';
import { workspaceDb } from '../workspace/scope.ts';
import type { RuleState } from './schemas.ts';
import { inForceWhere, notInForceWhere } from './rule-index.ts';

export type Page<T> = { items: T[]; nextCursor: string | null };

/** One page of `take` rows after `cursor` (an id) in id order, and the cursor of the next page when there is one. */
function paged<T extends { id: number }>(rows: T[], take: number): Page<T> {
  const items = rows.slice(0, take);
  return { items, nextCursor: rows.length > take ? String(items.at(-1)!.id) : null };
}

/**
 * A workspace's rules, oldest first, through the workspace-scoped client (domain/workspace/scope.ts):
 * active (in force now), inactive (expired, or past their own expiry) or all.
 */
export async function listOverrides(
  prisma: PrismaClient,
  workspaceId: number,
  q: { state: RuleState; limit: number; cursor?: number | null | undefined },
): Promise<Page<OverrideRule>> {
  const now = new Date();
  const state = q.state === 'active' ? inForceWhere(now) : q.state === 'inactive' ? notInForceWhere(now) : {};
  const rows = await workspaceDb(prisma, workspaceId).overrideRule.findMany({
    where: { ...state, ...(q.cursor ? { id: { gt: q.cursor } } : {}) },
    orderBy: { id: 'asc' },
    take: q.limit + 1,
  });
  return paged(rows, q.limit);
}

/**
 * The workspace's audit trail: oldest first (the order it was written in, as the export and GraphQL page it), or
 * newest first (the control plane's history, where the latest change is what a reader looks for); the cursor is
 * the last id of the previous page either way.
 */
export async function overrideAudit(
  prisma: PrismaClient,
  workspaceId: number,
  q: { limit: number; cursor?: number | null | undefined; newestFirst?: boolean },
): Promise<Page<OverrideAudit>> {
  const rows = await workspaceDb(prisma, workspaceId).overrideAudit.findMany({
    where: q.cursor ? { id: q.newestFirst ? { lt: q.cursor } : { gt: q.cursor } } : {},
    orderBy: { id: q.newestFirst ? 'desc' : 'asc' },
    take: q.limit + 1,
  });
  return paged(rows, q.limit);
}
