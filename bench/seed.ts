/**
 * Writes the data set into a fresh database BEFORE the service starts (PGlite allows one
 * process per data directory): migrations, API keys, and one complete publication written
 * with the publisher's own store functions (claim → batched unnest inserts → complete).
 */
import { openDatabase } from '../src/platform/db/database.ts';
import type { PrismaClient } from '../src/generated/prisma/client.ts';
import { createApiKey } from '../src/domain/access/keys.ts';
import { claimVersion, completePublication, insertSummaries, type StoredRow } from '../src/domain/publishing/publication-store.ts';
import { GLOBAL_LAYER } from '../src/domain/publishing/gather.ts';
import type { Dataset } from './dataset.ts';

export type SeedTarget = { databaseUrl?: string | undefined; dataDir: string; pepper: string };
export type Seeded = { keys: string[]; workspaceId: number; rows: number; seedMs: number };

const BATCH = 10_000;

/**
 * `workspaces` > 1 spreads the keys round-robin over workspaces 'bench', 'bench-2', …: the daily
 * quota is per workspace, so a long run can stay under it (keys[i] belongs to workspace i % workspaces).
 */
export async function seed(target: SeedTarget, data: Dataset, keyCount: number, workspaces = 1): Promise<Seeded> {
  const started = performance.now();
  const db = await openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
  try {
    await db.migrate();
    // Several keys: score's burst limit is per key per second, and the bench measures cost, not the limiter.
    const keys: string[] = [];
    for (let i = 0; i < keyCount; i++) {
      const w = i % Math.max(1, workspaces);
      keys.push((await createApiKey(db.prisma, target.pepper, { workspace: w === 0 ? 'bench' : `bench-${w + 1}`, name: `bench ${i}`, tier: 'enterprise' })).secret);
    }
    const workspace = await db.prisma.workspace.findUniqueOrThrow({ where: { name: 'bench' } });
    const rows = await writePublication(db.prisma, data, workspace.id, new Date());
    return { keys, workspaceId: workspace.id, rows, seedMs: Math.round(performance.now() - started) };
  } finally {
    await db.close();
  }
}

/** One complete publication of the data set (the bench workspace's own layer included); returns its row count. */
export async function writePublication(prisma: PrismaClient, data: Dataset, workspaceId: number, now: Date): Promise<number> {
  const rows: StoredRow[] = [
    ...data.global.map((r) => ({ ...r, workspaceId: GLOBAL_LAYER })),
    ...data.contextual.map((r) => ({ ...r, workspaceId })),
  ];
  const claimed = await claimVersion(prisma, now);
  for (let i = 0; i < rows.length; i += BATCH) await insertSummaries(prisma, claimed.id, rows.slice(i, i + BATCH));
  await completePublication(prisma, claimed.id, rows.length, { source: 'bench seed' }, now);
  return rows.length;
}
