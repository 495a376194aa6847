/**
 * Writes the data set into a fresh database BEFORE the service starts (PGlite allows one
 * process per data directory): migrations, API keys, and one complete publication written
 * with the publisher's own store functions (claim → batched unnest inserts → complete).
 */
import { openDatabase } from '../src/db/database.ts';
import { createApiKey } from '../src/domain/access/keys.ts';
import { claimVersion, completePublication, insertSummaries, type StoredRow } from '../src/domain/publishing/publication-store.ts';
import { GLOBAL_LAYER } from '../src/domain/publishing/gather.ts';
import type { Dataset } from './dataset.ts';

export type SeedTarget = { databaseUrl?: string | undefined; dataDir: string; pepper: string };
export type Seeded = { keys: string[]; workspaceId: number; rows: number; seedMs: number };

const BATCH = 10_000;

export async function seed(target: SeedTarget, data: Dataset, keyCount: number): Promise<Seeded> {
  const started = performance.now();
  const db = await openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
  try {
    await db.migrate();
    // Several keys: score's burst limit is per key per second, and the bench measures cost, not the limiter.
    const keys: string[] = [];
    for (let i = 0; i < keyCount; i++) {
      keys.push((await createApiKey(db.prisma, target.pepper, { workspace: 'bench', name: `bench ${i}`, tier: 'enterprise' })).secret);
    }
    const workspace = await db.prisma.workspace.findUniqueOrThrow({ where: { name: 'bench' } });
    const rows: StoredRow[] = [
      ...data.global.map((r) => ({ ...r, workspaceId: GLOBAL_LAYER })),
      ...data.contextual.map((r) => ({ ...r, workspaceId: workspace.id })),
    ];
    const now = new Date();
    const claimed = await claimVersion(db.prisma, now);
    for (let i = 0; i < rows.length; i += BATCH) await insertSummaries(db.prisma, claimed.id, rows.slice(i, i + BATCH));
    await completePublication(db.prisma, claimed.id, rows.length, { source: 'bench seed' }, now);
    return { keys, workspaceId: workspace.id, rows: rows.length, seedMs: Math.round(performance.now() - started) };
  } finally {
    await db.close();
  }
}
