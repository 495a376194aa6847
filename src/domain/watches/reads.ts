import type { PrismaClient, Watch } from '../../generated/prisma/client.ts';
import { workspaceDb } from '../workspace/scope.ts';
import type { Page } from '../overrides/reads.ts';

/** A workspace's watches, oldest first, through the workspace-scoped client; the cursor is the last id of the previous page. */
export async function listWatches(
  prisma: PrismaClient,
  workspaceId: number,
  q: { limit: number; cursor?: number | null | undefined },
): Promise<Page<Watch>> {
  const rows = await workspaceDb(prisma, workspaceId).watch.findMany({
    where: q.cursor ? { id: { gt: q.cursor } } : {},
    orderBy: { id: 'asc' },
    take: q.limit + 1,
  });
  const items = rows.slice(0, q.limit);
  return { items, nextCursor: rows.length > q.limit ? String(items.at(-1)!.id) : null };
}

/** How many watches the workspace holds (the control plane shows it against the cap). */
export async function countWatches(prisma: PrismaClient, workspaceId: number): Promise<number> {
  return workspaceDb(prisma, workspaceId).watch.count();
}
