/**
 * Writes the data set into a fresh database BEFORE the service starts (PGlite allows one
 * process per data directory): migrations, API keys, and one complete publication written
 * with the publisher's own store functions (claim → batched unnest inserts → complete).
 */
import { openDatabase } from '../src/platform/db/database.ts';
import type { PrismaClient } from '../src/generated/prisma/client.ts';
import { createApiKey } from '../src/domain/access/keys.ts';
import {
  claimVersion,
  completePublication,
  insertSummaries,
  type StoredRow,
} from '../src/domain/publishing/publication-store.ts';
import { SnapshotBuilder } from '../src/domain/publishing/snapshot-builder.ts';
import { GLOBAL_LAYER } from '../src/domain/publishing/gather.ts';
import type { Dataset } from './dataset.ts';
import { writeRating, writeReport } from '../src/domain/memory/writes.ts';
import { reportInputSchema } from '../src/domain/memory/schemas.ts';
import type { Viewer } from '../src/domain/access/verifier.ts';

export type SeedTarget = { databaseUrl?: string | undefined; dataDir: string; pepper: string };
export type Seeded = {
  keys: string[];
  workspaceId: number;
  rows: number;
  seedMs: number;
  /** Of seedMs: the publication, and the bench workspace's memory (ratings and reports through the write path). */
  publicationMs: number;
  memoryMs: number;
  writtenIps: string[];
};

const BATCH = 10_000;
/** One IP in WRITTEN_EVERY of the data set gets the bench workspace's own memory: two ratings and a report. */
const WRITTEN_EVERY = 10;

/**
 * `workspaces` > 1 spreads the keys round-robin over workspaces 'bench', 'bench-2', …: the daily
 * quota is per workspace, so a long run can stay under it (keys[i] belongs to workspace i % workspaces).
 * `maxWritten` caps the IPs given the workspace's memory (a tenth of the data set otherwise).
 */
export async function seed(
  target: SeedTarget,
  data: Dataset,
  keyCount: number,
  workspaces = 1,
  maxWritten = Number.POSITIVE_INFINITY,
): Promise<Seeded> {
  const started = performance.now();
  const db = await openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
  try {
    await db.migrate();
    // Several keys: score's burst limit is per key per second, and the bench measures cost, not the limiter.
    const keys: string[] = [];
    for (let i = 0; i < keyCount; i++) {
      const w = i % Math.max(1, workspaces);
      keys.push(
        (
          await createApiKey(db.prisma, target.pepper, {
            workspace: w === 0 ? 'bench' : `bench-${w + 1}`,
            name: `bench ${i}`,
            tier: 'enterprise',
          })
        ).secret,
      );
    }
    const workspace = await db.prisma.workspace.findUniqueOrThrow({ where: { name: 'bench' } });
    const publicationAt = performance.now();
    const rows = await writePublication(db.prisma, data, workspace.id, new Date());
    const memoryAt = performance.now();
    const writtenIps = data.ips.filter((_, i) => i % WRITTEN_EVERY === 0).slice(0, maxWritten);
    await writeMemoryOf(db.prisma, workspace.id, writtenIps);
    const end = performance.now();
    return {
      keys,
      workspaceId: workspace.id,
      rows,
      seedMs: Math.round(end - started),
      publicationMs: Math.round(memoryAt - publicationAt),
      memoryMs: Math.round(end - memoryAt),
      writtenIps,
    };
  } finally {
    await db.close();
  }
}

/** One complete publication of the data set (the bench workspace's own layer included); returns its row count. */
export async function writePublication(
  prisma: PrismaClient,
  data: Dataset,
  workspaceId: number,
  now: Date,
): Promise<number> {
  const rows: StoredRow[] = [
    ...data.global.map((r) => ({ ...r, workspaceId: GLOBAL_LAYER })),
    ...data.contextual.map((r) => ({ ...r, workspaceId })),
  ];
  const claimed = await claimVersion(prisma, now);
  const image = new SnapshotBuilder();
  for (const r of rows) image.addStored(r);
  for (let i = 0; i < rows.length; i += BATCH) await insertSummaries(prisma, claimed.id, rows.slice(i, i + BATCH));
  await completePublication(prisma, claimed.id, rows.length, { source: 'bench seed' }, now, image.encode());
  return rows.length;
}

/**
 * The bench workspace's memory of `ips` (two ratings and one report naming each, as its subject or as a
 * related subject), written by the service's own write path so it is stored exactly as `rate` and `report` store it.
 */
async function writeMemoryOf(prisma: PrismaClient, workspaceId: number, ips: string[]): Promise<void> {
  const key = await prisma.apiKey.findFirstOrThrow({ where: { workspaceId }, include: { workspace: true } });
  const viewer: Viewer = {
    workspaceId,
    workspaceName: key.workspace.name,
    tier: key.workspace.tier,
    apiKeyId: key.id,
    keyName: key.name,
    keyPrefix: key.prefix,
  };
  const deps = { prisma, ipMemory: { apply() {} } }; // no service runs yet: it reads the memory when it starts
  const CONCURRENT = 256; // enough callers for the group commit to write them in batches
  for (let i = 0; i < ips.length; i += CONCURRENT) {
    await Promise.all(
      ips.slice(i, i + CONCURRENT).map(async (ip, j) => {
        await writeRating(deps, viewer, { ip, rating: -1, note: 'card testing at checkout' });
        await writeRating(deps, viewer, { ip, rating: ((i + j) % 3) - 1, note: '' });
        const report =
          (i + j) % 2
            ? { kind: 'ipaddress', key: ip, title: 'Checkout velocity', outcomeCode: 'fraud_watch' }
            : {
                kind: 'account',
                key: `acct-${i + j}`,
                title: 'Account takeover',
                outcomeCode: 'fraud_watch',
                relatedSubjects: [{ kind: 'ipaddress', key: ip, role: 'source_ip' }],
              };
        await writeReport(deps, viewer, reportInputSchema.parse(report));
      }),
    );
  }
}
