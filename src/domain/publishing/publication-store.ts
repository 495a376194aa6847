/**
 * The Publication / PublishedSummary tables. A publication is written in three steps:
 *   1. claim   insert { version: max + 1, status 'building' }: the UNIQUE version means two
 *              publishers racing for the same number cannot both win (the loser gets a conflict);
 *   2. rows    insert summaries in batches (one array parameter per column via unnest, so a
 *              batch costs one statement whatever its size, and no bind-parameter limit applies);
 *   3. image   the same rows as one binary image (image-format.ts), stored in parts of IMAGE_PART_BYTES;
 *   4. finish  one short transaction flips status to 'complete' with entityCount, stats and the image's size.
 * Readers only look at the highest COMPLETE version, so step 4 is the atomic switch and a
 * half-written publication is invisible.
 */
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';
import type { SummaryRow } from './summarize.ts';
import { publishedCounts } from '../scoring/evidence.ts';
import { reportedTuple } from './image-format.ts';

export const STALE_BUILDING_MS = 60 * 60_000;

export type Claimed = { id: number; version: number };
export type StoredRow = SummaryRow & { workspaceId: number };

export const PUBLISH_CONFLICT_MESSAGE = 'another publication is in progress';

export function publishConflict(): AppError {
  return new AppError('service_unavailable', `Cannot publish now: ${PUBLISH_CONFLICT_MESSAGE}.`);
}

export function isPublishConflict(e: unknown): boolean {
  return e instanceof AppError && e.message.includes(PUBLISH_CONFLICT_MESSAGE);
}

function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: unknown; meta?: { code?: unknown }; message?: unknown };
  return (
    err?.code === 'P2002' || err?.meta?.code === '23505' || /unique constraint|23505/i.test(String(err?.message ?? ''))
  );
}

export async function claimVersion(prisma: PrismaClient, startedAt: Date): Promise<Claimed> {
  const latest = await prisma.publication.aggregate({ _max: { version: true } });
  try {
    return await prisma.publication.create({
      data: { version: (latest._max.version ?? 0) + 1, status: 'building', startedAt },
      select: { id: true, version: true },
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw publishConflict();
    throw e;
  }
}

export async function insertSummaries(
  prisma: PrismaClient,
  publicationId: number,
  rows: readonly StoredRow[],
): Promise<void> {
  if (rows.length === 0) return;
  const col = <T>(f: (r: StoredRow) => T): T[] => rows.map(f);
  const iso = (d: Date | null) => (d === null ? null : d.toISOString());
  await prisma.$executeRaw`
    INSERT INTO "PublishedSummary"
      ("publicationId", "workspaceId", "code", "key", "name", "score", "level", "counts", "reporters", "firstSeen", "lastSeen", "reported")
    SELECT ${publicationId}, w, c, k, n, s, l, j::jsonb, r, f::timestamptz, t::timestamptz, x::jsonb
      FROM unnest(${col((r) => r.workspaceId)}::int[], ${col((r) => r.code)}::text[], ${col((r) => r.key)}::text[],
                  ${col((r) => r.name)}::text[], ${col((r) => r.summary.score)}::int[], ${col((r) => r.summary.level)}::text[],
                  ${col((r) => JSON.stringify(publishedCounts(r.summary.counts)))}::text[], ${col((r) => r.summary.reporters)}::int[],
                  ${col((r) => iso(r.summary.firstSeen))}::text[], ${col((r) => iso(r.summary.lastSeen))}::text[],
                  ${col((r) => JSON.stringify(reportedTuple(r.summary.reported)))}::text[])
        AS t(w, c, k, n, s, l, j, r, f, t, x)`;
}

/**
 * Bytes per stored image part. Small enough that a part's hex text (bytea travels as hex) is an ordinary
 * young-generation string, collected as soon as it is decoded; one statement reads or writes IMAGE_PARTS_PER_STATEMENT.
 */
const IMAGE_PART_BYTES = 48 << 10;
const IMAGE_PARTS_PER_STATEMENT = 64;

/** Stores a publication's image as parts 0, 1, … of IMAGE_PART_BYTES each. */
export async function storeImage(prisma: PrismaClient, publicationId: number, image: Uint8Array): Promise<void> {
  const parts = Math.ceil(image.byteLength / IMAGE_PART_BYTES);
  for (let first = 0; first < parts; first += IMAGE_PARTS_PER_STATEMENT) {
    const data = [];
    for (let part = first; part < Math.min(parts, first + IMAGE_PARTS_PER_STATEMENT); part++) {
      data.push({ publicationId, part, bytes: image.slice(part * IMAGE_PART_BYTES, (part + 1) * IMAGE_PART_BYTES) });
    }
    await prisma.publicationImagePart.createMany({ data });
  }
}

export async function completePublication(
  prisma: PrismaClient,
  id: number,
  entityCount: number,
  stats: Prisma.InputJsonValue,
  publishedAt: Date,
  image: Uint8Array,
): Promise<void> {
  await storeImage(prisma, id, image);
  // Fresh planner statistics before readers arrive: a reader that cannot read the image walks the rows in
  // primary-key order in chunks (cache.ts), and with statistics from before this publication's rows existed the
  // planner sorts everything after the cursor for every chunk, doubling that load (docs/decisions/0005-publication-snapshot-in-columns.md).
  await prisma.$executeRawUnsafe('ANALYZE "PublishedSummary"');
  await prisma.$transaction(async (tx) => {
    const done = await tx.publication.updateMany({
      where: { id, status: 'building' },
      data: { status: 'complete', entityCount, stats, publishedAt, imageBytes: image.byteLength },
    });
    // Pruned as stale by another node while we were writing: our rows are gone with it.
    if (done.count !== 1) throw new Error(`publication ${id} disappeared while it was being written`);
  });
}

/** Best effort after a failure: a half-written publication is invisible anyway, but it holds rows. */
export async function discardPublication(prisma: PrismaClient, id: number): Promise<void> {
  await prisma.publication.deleteMany({ where: { id, status: 'building' } });
}

/**
 * Keeps the newest `keep` complete publications (at least 1) and drops 'building' ones that
 * started over an hour ago (a crashed publisher's leftovers). Summaries go by cascade.
 */
export async function prunePublications(prisma: PrismaClient, keep: number, now: Date = new Date()): Promise<number> {
  const keepCount = Math.max(1, Math.floor(keep));
  const old = await prisma.publication.findMany({
    where: { status: 'complete' },
    orderBy: { version: 'desc' },
    skip: keepCount,
    select: { id: true },
  });
  const stale = await prisma.publication.findMany({
    where: { status: 'building', startedAt: { lt: new Date(now.getTime() - STALE_BUILDING_MS) } },
    select: { id: true },
  });
  const ids = [...old, ...stale].map((p) => p.id);
  if (ids.length === 0) return 0;
  return (await prisma.publication.deleteMany({ where: { id: { in: ids } } })).count;
}

export type LatestPublication = {
  id: number;
  version: number;
  publishedAt: Date | null;
  entityCount: number;
  imageBytes: number | null;
};

/** The publication readers use: the highest complete version, or null before the first one. */
export async function latestComplete(prisma: PrismaClient): Promise<LatestPublication | null> {
  return prisma.publication.findFirst({
    where: { status: 'complete' },
    orderBy: { version: 'desc' },
    select: { id: true, version: true, publishedAt: true, entityCount: true, imageBytes: true },
  });
}

/**
 * A publication's image, read part by part into one buffer of its recorded size; null when its
 * parts are gone (pruned meanwhile) or do not add up to that size. Each part's hex text is decoded
 * straight into its place.
 */
export async function readImage(
  prisma: PrismaClient,
  publicationId: number,
  imageBytes: number,
): Promise<Uint8Array | null> {
  const image = Buffer.alloc(imageBytes);
  let filled = 0;
  for (let next = 0; filled < imageBytes; next += IMAGE_PARTS_PER_STATEMENT) {
    const parts: Array<{ part: number; hex: string }> = await prisma.$queryRaw`
      SELECT "part", encode("bytes", 'hex') AS "hex" FROM "PublicationImagePart"
       WHERE "publicationId" = ${publicationId} AND "part" BETWEEN ${next} AND ${next + IMAGE_PARTS_PER_STATEMENT - 1} ORDER BY "part"`;
    if (parts.length === 0) return null;
    for (const [i, { part, hex }] of parts.entries()) {
      if (part !== next + i || filled + hex.length / 2 > imageBytes) return null;
      filled += image.write(hex, filled, 'hex');
    }
  }
  return new Uint8Array(image.buffer, image.byteOffset, image.byteLength);
}
