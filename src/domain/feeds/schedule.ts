/**
 * Feeds fetched from URLs: the FeedSchedule rows (where from, how often, the version held, the last fetch) and
 * the reads that show them. Fetching is fetch-feed.ts; the server's timer is scheduler.ts.
 */
import type { PrismaClient, FeedSchedule } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';
import { checkFeedFormat, checkFeedWeight, listFeeds, normalizeFeedName, type FeedInfo } from './store.ts';
import { checkFeedUrl, DownloadError } from './download.ts';
import type { FeedFormat } from './parse.ts';

const UNITS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;
/** Shortest and longest interval: a minute keeps a mistyped schedule from hammering a provider. */
export const MIN_EVERY_SECONDS = 60;
export const MAX_EVERY_SECONDS = 30 * 86_400;
/** A failed fetch (network, HTTP, limits) is tried again after this long, or the feed's interval if shorter. */
export const RETRY_AFTER_FAILURE_SECONDS = 600;
const MAX_URL = 500;
const MAX_ERROR = 500;

export type FetchOutcomeName = 'imported' | 'not_modified' | 'unchanged' | 'refused' | 'failed';
export type LastFetch = {
  at: Date;
  outcome: FetchOutcomeName;
  httpStatus: number | null;
  entries: number | null;
  error: string | null;
  durationMs: number | null;
  bytes: number | null;
};
export type ScheduleInfo = {
  url: string;
  every: string;
  everySeconds: number;
  format: FeedFormat;
  column: string | null;
  allowPartial: boolean;
  weight: number | null;
  nextFetchAt: Date;
  lastSuccessAt: Date | null;
  lastFetch: LastFetch | null;
};
export type FeedListing = Omit<FeedInfo, 'importedAt'> & { importedAt: Date | null; schedule: ScheduleInfo | null };

/** "90s", "30m", "1h", "1d" → seconds, within MIN_EVERY_SECONDS..MAX_EVERY_SECONDS. */
export function parseEvery(text: string): number {
  const match = /^\s*(\d{1,7})\s*([smhd])\s*$/.exec(String(text));
  const seconds = match ? Number(match[1]) * UNITS[match[2] as keyof typeof UNITS] : NaN;
  if (!(seconds >= MIN_EVERY_SECONDS && seconds <= MAX_EVERY_SECONDS)) {
    throw new AppError('invalid_request', '--every is an interval such as 30m, 1h or 1d, from 1m to 30d.', [
      { field: 'every', message: 'must be 1m..30d' },
    ]);
  }
  return seconds;
}

/** The shortest text for an interval ("1h", "90m", "45s"). */
export function everyText(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const)
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  return `${seconds}s`;
}

export type ScheduleInput = {
  name: string;
  url: string;
  every: string;
  format?: string | undefined;
  column?: string | undefined;
  weight?: number | undefined;
  allowPartial?: boolean;
};

/**
 * Adds a feed fetched from a URL, or changes one (same name). A new URL, format or column forgets the version
 * held, so the next fetch is a full one. Nothing is fetched here; the caller fetches at once (fetch-feed.ts).
 */
export async function saveFeedSchedule(
  prisma: PrismaClient,
  input: ScheduleInput,
  now = new Date(),
): Promise<FeedSchedule> {
  const name = normalizeFeedName(input.name);
  if (typeof input.url !== 'string' || input.url.length > MAX_URL)
    throw new AppError('invalid_request', `--url is required: an http or https URL of at most ${MAX_URL} characters.`, [
      { field: 'url', message: 'required' },
    ]);
  try {
    checkFeedUrl(input.url);
  } catch (e) {
    if (e instanceof DownloadError)
      throw new AppError('invalid_request', `--url: ${e.message}.`, [{ field: 'url', message: e.message }]);
    throw e;
  }
  const everySeconds = parseEvery(input.every);
  const format = checkFeedFormat(input.format ?? 'plain');
  checkFeedWeight(input.weight);
  const column = input.column ?? null;
  if (column !== null && (format !== 'csv' || column.length === 0 || column.length > 64)) {
    throw new AppError(
      'invalid_request',
      '--column names the address column of a CSV feed (1-64 characters, with --format csv).',
      [{ field: 'column', message: 'csv only' }],
    );
  }
  const settings = {
    url: input.url,
    everySeconds,
    format,
    column,
    allowPartial: input.allowPartial ?? false,
    weight: input.weight ?? null,
    nextFetchAt: new Date(now.getTime() + everySeconds * 1000),
  };
  return prisma.$transaction(async (tx) => {
    const before = await tx.feedSchedule.findUnique({ where: { name } });
    const sameSource = before && before.url === settings.url && before.format === format && before.column === column;
    // A new weight applies now: an unchanged list (304) is not imported again to carry it.
    if (input.weight !== undefined) await tx.feed.updateMany({ where: { name }, data: { weight: input.weight } });
    return tx.feedSchedule.upsert({
      where: { name },
      create: { name, ...settings },
      update: { ...settings, ...(sameSource ? {} : { etag: null, lastModified: null, contentHash: null }) },
    });
  });
}

export async function removeFeedSchedule(prisma: PrismaClient, name: string): Promise<boolean> {
  return (await prisma.feedSchedule.deleteMany({ where: { name: normalizeFeedName(name) } })).count > 0;
}

export function scheduleInfo(s: FeedSchedule): ScheduleInfo {
  return {
    url: s.url,
    every: everyText(s.everySeconds),
    everySeconds: s.everySeconds,
    format: s.format as FeedFormat,
    column: s.column,
    allowPartial: s.allowPartial,
    weight: s.weight,
    nextFetchAt: s.nextFetchAt,
    lastSuccessAt: s.lastSuccessAt,
    lastFetch:
      s.lastFetchAt && s.lastOutcome
        ? {
            at: s.lastFetchAt,
            outcome: s.lastOutcome as FetchOutcomeName,
            httpStatus: s.lastHttpStatus,
            entries: s.lastEntries,
            error: s.lastError,
            durationMs: s.lastDurationMs,
            bytes: s.lastBytes,
          }
        : null,
  };
}

/** Every feed, imported or fetched, with its fetch status when it comes from a URL (`feeds list`). */
export async function listFeedsWithSchedules(prisma: PrismaClient): Promise<FeedListing[]> {
  const [feeds, schedules] = await Promise.all([listFeeds(prisma), prisma.feedSchedule.findMany()]);
  const byName = new Map(schedules.map((s) => [s.name, s]));
  const listed: FeedListing[] = feeds.map((f) => ({
    ...f,
    schedule: byName.has(f.name) ? scheduleInfo(byName.get(f.name)!) : null,
  }));
  for (const s of schedules) {
    if (feeds.some((f) => f.name === s.name)) continue;
    listed.push({
      name: s.name,
      format: s.format,
      weight: s.weight ?? 1,
      source: s.url,
      entries: 0,
      errors: 0,
      importedAt: null,
      schedule: scheduleInfo(s),
    });
  }
  return listed.sort((a, b) => a.name.localeCompare(b.name));
}

/** Stores how a fetch went, and when the next one is due (sooner after a failure). */
export async function recordFetch(
  prisma: PrismaClient,
  s: FeedSchedule,
  last: LastFetch,
  held?: { etag: string | null; lastModified: string | null; contentHash: string },
): Promise<FeedSchedule> {
  const retry = last.outcome === 'failed' ? Math.min(s.everySeconds, RETRY_AFTER_FAILURE_SECONDS) : s.everySeconds;
  const ok = last.outcome !== 'failed' && last.outcome !== 'refused';
  const rows = await prisma.feedSchedule.updateManyAndReturn({
    where: { name: s.name, url: s.url }, // the schedule removed or pointed elsewhere meanwhile: this fetch is not its status
    data: {
      lastFetchAt: last.at,
      lastOutcome: last.outcome,
      lastHttpStatus: last.httpStatus,
      lastEntries: last.entries,
      lastError: last.error?.slice(0, MAX_ERROR) ?? null,
      lastDurationMs: last.durationMs,
      lastBytes: last.bytes,
      nextFetchAt: new Date(last.at.getTime() + retry * 1000),
      ...(ok ? { lastSuccessAt: last.at } : {}),
      ...(held ?? {}),
    },
  });
  return rows[0] ?? s;
}

/**
 * Takes the most overdue feed for this process, or null: its next fetch time moves one interval on in the same
 * statement, so of several servers sharing PostgreSQL exactly one fetches it.
 */
export async function claimDueFeed(prisma: PrismaClient, now = new Date()): Promise<FeedSchedule | null> {
  for (;;) {
    const due = await prisma.feedSchedule.findFirst({
      where: { nextFetchAt: { lte: now } },
      orderBy: { nextFetchAt: 'asc' },
    });
    if (!due) return null;
    const claimed = await prisma.feedSchedule.updateMany({
      where: { name: due.name, nextFetchAt: due.nextFetchAt },
      data: { nextFetchAt: new Date(now.getTime() + due.everySeconds * 1000) },
    });
    if (claimed.count === 1) return due;
  }
}
