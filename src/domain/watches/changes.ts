import type { PrismaClient, Watch } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../overrides/changes.ts';
import { WATCH_LIMITS, type CreateWatchInput, type UpdateWatchInput } from './schemas.ts';

type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/**
 * Changes of one workspace's watches take turns (its row locked, FOR NO KEY UPDATE as override changes take it:
 * the report path's foreign-key checks pass), so the cap and "one watch per target" hold under concurrency.
 */
async function lockWorkspace(tx: Tx, workspaceId: number): Promise<void> {
  const rows = await tx.$queryRaw<
    Array<{ id: number }>
  >`SELECT "id" FROM "Workspace" WHERE "id" = ${workspaceId} FOR NO KEY UPDATE`;
  if (rows.length === 0) throw new AppError('not_found', 'The workspace no longer exists.');
}

/** Creates a watch; refused, changing nothing, when the target is already watched or the workspace holds WATCH_LIMITS.perWorkspace. */
export async function createWatch(
  prisma: PrismaClient,
  workspaceId: number,
  input: CreateWatchInput,
  actor: Actor,
): Promise<Watch> {
  return prisma.$transaction(async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const existing = await tx.watch.findFirst({
      where: { workspaceId, targetKind: input.target.kind, target: input.target.key },
      select: { id: true },
    });
    if (existing) {
      throw new AppError(
        'watch_exists',
        `Watch ${existing.id} already watches ${input.target.key}; update it instead.`,
        [
          {
            field: input.target.kind === 'subject' ? 'subject' : 'target',
            message: `already watched by watch ${existing.id}`,
          },
        ],
      );
    }
    const count = await tx.watch.count({ where: { workspaceId } });
    if (count >= WATCH_LIMITS.perWorkspace) {
      throw new AppError(
        'watch_limit_reached',
        `The workspace has ${count} watches, the most it may hold (${WATCH_LIMITS.perWorkspace}); delete some first.`,
      );
    }
    return tx.watch.create({
      data: {
        workspaceId,
        targetKind: input.target.kind,
        target: input.target.key,
        scoreThreshold: input.scoreThreshold,
        note: input.note,
        authorKind: actor.kind,
        authorId: actor.id,
        authorLabel: actor.label,
      },
    });
  });
}

/** A watch of the workspace; not found for another workspace's, as for one that never existed. */
async function ownWatch(tx: Tx, workspaceId: number, id: number): Promise<Watch> {
  const watch = await tx.watch.findFirst({ where: { id, workspaceId } });
  if (!watch)
    throw new AppError('not_found', `No watch ${id} in this workspace.`, [{ field: 'id', message: 'no such watch' }]);
  return watch;
}

/** Changes a watch's threshold or note. A new threshold is compared from the next publication on (its state is kept). */
export async function updateWatch(prisma: PrismaClient, workspaceId: number, input: UpdateWatchInput): Promise<Watch> {
  return prisma.$transaction(async (tx) => {
    const watch = await ownWatch(tx, workspaceId, input.id);
    if (watch.targetKind === 'subject' && input.scoreThreshold !== undefined && input.scoreThreshold !== null) {
      throw new AppError(
        'invalid_request',
        'A subject watch has no score threshold (subjects have no published score).',
        [{ field: 'score_threshold', message: 'must be absent for a subject watch' }],
      );
    }
    return tx.watch.update({
      where: { id: watch.id },
      data: {
        ...(input.scoreThreshold !== undefined ? { scoreThreshold: input.scoreThreshold } : {}),
        ...(input.note !== undefined ? { note: input.note } : {}),
      },
    });
  });
}

/** Deletes a watch; its events already written stay with their deliveries. */
export async function deleteWatch(prisma: PrismaClient, workspaceId: number, id: number): Promise<Watch> {
  return prisma.$transaction(async (tx) => {
    const watch = await ownWatch(tx, workspaceId, id);
    await tx.watch.delete({ where: { id: watch.id } });
    return watch;
  });
}
