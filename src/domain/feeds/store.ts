/**
 * Imported threat feeds in the database. A feed is replaced as a whole: the Feed row is upserted,
 * its old entries deleted and the new ones inserted in ONE transaction, so a publisher reading
 * concurrently sees either the old list or the new one, never a half-replaced feed.
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';
import type { FeedFormat, FeedParseResult } from './parse.ts';

export type ImportFeedInput = {
  name: string;
  format: FeedFormat;
  /** Confidence 0..1 of one listing (the CLI defaults it to 1). */
  weight: number;
  /** Where the list came from (a file path or URL), shown by `feeds list`. */
  source: string;
  parsed: FeedParseResult;
  now?: Date;
};

export type ImportFeedResult = { name: string; entries: number; errors: number; lines: number; replaced: boolean };

export type FeedInfo = {
  name: string; format: string; weight: number; source: string; entries: number; errors: number; importedAt: Date;
};

const NAME_PATTERN = /^[a-z0-9_.-]{1,64}$/;
const FORMATS: readonly string[] = ['plain', 'csv'];
const MAX_SOURCE = 500;
/** Rows per INSERT: one array parameter per column, so the size is bounded by memory, not by bind limits. */
const INSERT_BATCH = 5000;
/** A multi-million-line feed takes a while on PGlite; the transaction must not time out under it. */
const IMPORT_TIMEOUT_MS = 15 * 60_000;

/** The stored form of a feed name (lower case), or an invalid_request error naming the rule. */
export function normalizeFeedName(name: string): string {
  const lower = String(name).trim().toLowerCase();
  if (!NAME_PATTERN.test(lower)) {
    throw new AppError('invalid_request', 'A feed name is 1-64 characters of a-z, 0-9, "_", "." and "-".',
      [{ field: 'name', message: 'must match [a-z0-9_.-]{1,64}' }]);
  }
  return lower;
}

function validate(input: ImportFeedInput): string {
  const name = normalizeFeedName(input.name);
  if (typeof input.weight !== 'number' || !Number.isFinite(input.weight) || input.weight < 0 || input.weight > 1) {
    throw new AppError('invalid_request', 'A feed weight is a number from 0 to 1.', [{ field: 'weight', message: 'must be 0..1' }]);
  }
  if (!FORMATS.includes(input.format)) {
    throw new AppError('invalid_request', 'A feed format is "plain" or "csv".', [{ field: 'format', message: 'must be plain or csv' }]);
  }
  if (input.parsed.fatal) {
    const first = input.parsed.errors[0];
    throw new AppError('invalid_request', `The feed cannot be read: ${first?.reason ?? 'unreadable file'}.`,
      [{ field: 'file', message: first?.reason ?? 'unreadable' }]);
  }
  return name;
}

export async function importFeed(prisma: PrismaClient, input: ImportFeedInput): Promise<ImportFeedResult> {
  const name = validate(input);
  const { entries, errors, errorsOmitted, lines } = input.parsed;
  const errorCount = errors.length + errorsOmitted;
  const data = {
    format: input.format, weight: input.weight, source: String(input.source).slice(0, MAX_SOURCE),
    entryCount: entries.length, errorCount, importedAt: input.now ?? new Date(),
  };
  const replaced = await prisma.$transaction(async (tx) => {
    const existing = await tx.feed.findUnique({ where: { name }, select: { id: true } });
    const feed = await tx.feed.upsert({ where: { name }, create: { name, ...data }, update: data, select: { id: true } });
    if (existing) await tx.feedEntry.deleteMany({ where: { feedId: feed.id } });
    for (let at = 0; at < entries.length; at += INSERT_BATCH) {
      const batch = entries.slice(at, at + INSERT_BATCH);
      const cidrs = batch.map((e) => e.cidr);
      const lineNos = batch.map((e) => e.line);
      await tx.$executeRaw`
        INSERT INTO "FeedEntry" ("feedId", "cidr", "line")
        SELECT ${feed.id}, c, l FROM unnest(${cidrs}::text[], ${lineNos}::int[]) AS t(c, l)`;
    }
    return existing !== null;
  }, { timeout: IMPORT_TIMEOUT_MS, maxWait: 60_000 });
  return { name, entries: entries.length, errors: errorCount, lines, replaced };
}

export async function listFeeds(prisma: PrismaClient): Promise<FeedInfo[]> {
  const rows = await prisma.feed.findMany({ orderBy: { name: 'asc' } });
  return rows.map((f) => ({
    name: f.name, format: f.format, weight: f.weight, source: f.source,
    entries: f.entryCount, errors: f.errorCount, importedAt: f.importedAt,
  }));
}

/** Deletes the feed and (by cascade) its entries; its listings leave the next publication. */
export async function removeFeed(prisma: PrismaClient, name: string): Promise<{ name: string; entries: number }> {
  const key = normalizeFeedName(name);
  const feed = await prisma.feed.findUnique({ where: { name: key }, select: { id: true, entryCount: true } });
  // deleteMany, not delete: a concurrent remove of the same feed must end in not_found, not a crash
  const deleted = feed ? await prisma.feed.deleteMany({ where: { id: feed.id } }) : { count: 0 };
  if (!feed || deleted.count === 0) throw new AppError('not_found', `No feed is named "${key}".`);
  return { name: key, entries: feed.entryCount };
}
