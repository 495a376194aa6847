/**
 * Imported threat feeds in the database. A feed is replaced as a whole: the Feed row is upserted,
 * its old entries deleted and the new ones inserted in ONE transaction, so a publisher reading
 * concurrently sees either the old list or the new one, never a half-replaced feed.
 *
 * A download gone wrong (an HTML error page, a truncated or foreign file) must not replace a good list: an
 * import with no valid entry is refused, and one with more than MAX_BAD_LINE_SHARE of its data lines bad is
 * refused unless the operator allows a partial list. A refused import changes nothing.
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';
import type { FeedFormat, FeedParseResult } from './parse.ts';

export type ImportFeedInput = {
  name: string;
  format: FeedFormat;
  /** Confidence 0..1 of one listing. Omitted: a new feed gets 1, a re-imported one keeps its weight. */
  weight?: number | undefined;
  /** Where the list came from (a file path or URL), shown by `feeds list`. */
  source: string;
  parsed: FeedParseResult;
  /** Accept more than MAX_BAD_LINE_SHARE bad lines (never a feed with no valid entry). */
  allowPartial?: boolean;
  /** Check and report; write nothing. */
  dryRun?: boolean;
  /** The import of a fetch of the feed's own URL (schedule.ts). Any other import into a feed fetched from a URL is refused. */
  fromSchedule?: boolean;
  now?: Date;
};

export type ImportFeedResult = {
  name: string;
  entries: number;
  errors: number;
  lines: number;
  replaced: boolean;
  /** Entries the feed held before (null: a new feed). */
  previousEntries: number | null;
  /** The weight the feed has after the import. */
  weight: number;
  dryRun: boolean;
};

export type FeedInfo = {
  name: string;
  format: string;
  weight: number;
  source: string;
  entries: number;
  errors: number;
  importedAt: Date;
};

const NAME_PATTERN = /^[a-z0-9_.-]{1,64}$/;
const FORMATS: readonly string[] = ['plain', 'csv'];
const MAX_SOURCE = 500;
/** Above this share of bad data lines the file is more likely a broken download than a feed. */
export const MAX_BAD_LINE_SHARE = 0.1;
const DEFAULT_WEIGHT = 1;
/** Rows per INSERT: one array parameter per column, so the size is bounded by memory, not by bind limits. */
const INSERT_BATCH = 5000;
/** A multi-million-line feed takes a while on PGlite; the transaction must not time out under it. */
const IMPORT_TIMEOUT_MS = 15 * 60_000;

/** The stored form of a feed name (lower case), or an invalid_request error naming the rule. */
export function normalizeFeedName(name: string): string {
  const lower = String(name).trim().toLowerCase();
  if (!NAME_PATTERN.test(lower)) {
    throw new AppError('invalid_request', 'A feed name is 1-64 characters of a-z, 0-9, "_", "." and "-".', [
      { field: 'name', message: 'must match [a-z0-9_.-]{1,64}' },
    ]);
  }
  return lower;
}

/** A weight given by the operator: a number from 0 to 1 (undefined: none given). */
export function checkFeedWeight(weight: unknown): void {
  if (weight !== undefined && (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0 || weight > 1)) {
    throw new AppError('invalid_request', 'A feed weight is a number from 0 to 1.', [
      { field: 'weight', message: 'must be 0..1' },
    ]);
  }
}

export function checkFeedFormat(format: unknown): FeedFormat {
  if (typeof format !== 'string' || !FORMATS.includes(format)) {
    throw new AppError('invalid_request', 'A feed format is "plain" or "csv".', [
      { field: 'format', message: 'must be plain or csv' },
    ]);
  }
  return format as FeedFormat;
}

function validate(input: ImportFeedInput): string {
  const name = normalizeFeedName(input.name);
  checkFeedWeight(input.weight);
  checkFeedFormat(input.format);
  if (input.parsed.fatal) {
    const first = input.parsed.errors[0];
    throw new AppError('invalid_request', `The feed cannot be read: ${first?.reason ?? 'unreadable file'}.`, [
      { field: 'file', message: first?.reason ?? 'unreadable' },
    ]);
  }
  refuseSuspectList(input.parsed, input.allowPartial ?? false);
  return name;
}

function refuseSuspectList(parsed: FeedParseResult, allowPartial: boolean): void {
  const bad = parsed.errors.length + parsed.errorsOmitted;
  const first = parsed.errors[0];
  const example = first ? ` (first bad line ${first.line}: ${JSON.stringify(first.text.slice(0, 60))})` : '';
  if (parsed.entries.length === 0) {
    throw new AppError(
      'invalid_request',
      `The file has no valid entry: ${bad} bad lines${example}. Nothing was changed; to empty a feed, remove it with "feeds remove".`,
      [{ field: 'file', message: 'no valid entry' }],
    );
  }
  const dataLines = parsed.validLines + bad;
  if (!allowPartial && bad > MAX_BAD_LINE_SHARE * dataLines) {
    throw new AppError(
      'invalid_request',
      `${bad} of ${dataLines} lines holding data are bad, more than ${MAX_BAD_LINE_SHARE * 100}%${example}: the file looks like a broken download. Nothing was changed; import only its valid entries with --allow-partial.`,
      [{ field: 'file', message: `more than ${MAX_BAD_LINE_SHARE * 100}% bad lines` }],
    );
  }
}

export async function importFeed(prisma: PrismaClient, input: ImportFeedInput): Promise<ImportFeedResult> {
  const name = validate(input);
  if (!input.fromSchedule) {
    const scheduled = await prisma.feedSchedule.findUnique({ where: { name }, select: { url: true } });
    if (scheduled) {
      throw new AppError(
        'invalid_request',
        `Feed "${name}" is fetched from ${scheduled.url}: its next fetch would replace this import. Import under another name, or remove the feed first.`,
        [{ field: 'name', message: 'fetched from a URL' }],
      );
    }
  }
  const { entries, errors, errorsOmitted, lines } = input.parsed;
  const errorCount = errors.length + errorsOmitted;
  const outcome = (previous: { entryCount: number; weight: number } | null, dryRun: boolean): ImportFeedResult => ({
    name,
    entries: entries.length,
    errors: errorCount,
    lines,
    replaced: previous !== null,
    previousEntries: previous?.entryCount ?? null,
    weight: input.weight ?? previous?.weight ?? DEFAULT_WEIGHT,
    dryRun,
  });
  if (input.dryRun)
    return outcome(await prisma.feed.findUnique({ where: { name }, select: { entryCount: true, weight: true } }), true);
  const data = {
    format: input.format,
    source: String(input.source).slice(0, MAX_SOURCE),
    entryCount: entries.length,
    errorCount,
    importedAt: input.now ?? new Date(),
    ...(input.weight !== undefined ? { weight: input.weight } : {}),
  };
  const previous = await prisma.$transaction(
    async (tx) => {
      const existing = await tx.feed.findUnique({
        where: { name },
        select: { id: true, entryCount: true, weight: true },
      });
      const feed = await tx.feed.upsert({
        where: { name },
        create: { name, weight: DEFAULT_WEIGHT, ...data },
        update: data,
        select: { id: true },
      });
      if (existing) await tx.feedEntry.deleteMany({ where: { feedId: feed.id } });
      for (let at = 0; at < entries.length; at += INSERT_BATCH) {
        const batch = entries.slice(at, at + INSERT_BATCH);
        const cidrs = batch.map((e) => e.cidr);
        const lineNos = batch.map((e) => e.line);
        await tx.$executeRaw`
        INSERT INTO "FeedEntry" ("feedId", "cidr", "line")
        SELECT ${feed.id}, c, l FROM unnest(${cidrs}::text[], ${lineNos}::int[]) AS t(c, l)`;
      }
      return existing;
    },
    { timeout: IMPORT_TIMEOUT_MS, maxWait: 60_000 },
  );
  return outcome(previous, false);
}

export async function listFeeds(prisma: PrismaClient): Promise<FeedInfo[]> {
  const rows = await prisma.feed.findMany({ orderBy: { name: 'asc' } });
  return rows.map((f) => ({
    name: f.name,
    format: f.format,
    weight: f.weight,
    source: f.source,
    entries: f.entryCount,
    errors: f.errorCount,
    importedAt: f.importedAt,
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
