/**
 * One fetch of a feed from its URL: download (download.ts), parse while it streams in, and import through the same
 * checks as a file (store.ts: no valid entry, or too many bad lines without allowPartial, is refused and the
 * version held stays). 304 Not Modified, or a 200 with the very bytes held, changes nothing. Every fetch, good or
 * bad, is recorded on the schedule (schedule.ts) for `feeds list` and metrics.
 */
import { createHash } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { AppError, isAppError } from '../../errors.ts';
import { download, DownloadError, type DownloadLimits } from './download.ts';
import { parseFeed, type FeedError, type FeedFormat } from './parse.ts';
import { importFeed, normalizeFeedName } from './store.ts';
import { recordFetch, scheduleInfo, type FetchOutcomeName, type LastFetch, type ScheduleInfo } from './schedule.ts';

export type FetchResult = LastFetch & {
  name: string;
  /** The first bad lines of the list fetched (its import reports them as a file import does). */
  badLines: FeedError[];
  schedule: ScheduleInfo;
};

export async function fetchFeed(
  prisma: PrismaClient,
  feedName: string,
  limits: DownloadLimits,
  opts: { stop?: AbortSignal; now?: () => Date } = {},
): Promise<FetchResult> {
  const name = normalizeFeedName(feedName);
  const schedule = await prisma.feedSchedule.findUnique({ where: { name } });
  if (!schedule)
    throw new AppError(
      'not_found',
      `No feed named "${name}" is fetched from a URL (add one with "feeds add ${name} --url URL --every 1h").`,
    );
  const clock = opts.now ?? (() => new Date());
  const at = clock();
  let outcome: FetchOutcomeName = 'failed';
  let httpStatus: number | null = null;
  let entries: number | null = null;
  let error: string | null = null;
  let bytes: number | null = null;
  let badLines: FeedError[] = [];
  let held: { etag: string | null; lastModified: string | null; contentHash: string } | undefined;
  try {
    const got = await download(
      schedule.url,
      { etag: schedule.etag, lastModified: schedule.lastModified },
      limits,
      opts.stop,
    );
    httpStatus = got.status;
    if (got.notModified) {
      outcome = 'not_modified';
      entries = (await prisma.feed.findUnique({ where: { name }, select: { entryCount: true } }))?.entryCount ?? null;
    } else {
      const hash = createHash('sha256');
      let count = 0;
      const parsed = await parseFeed(
        (async function* () {
          for await (const chunk of got.body) {
            hash.update(chunk);
            count += chunk.length;
            yield chunk;
          }
        })(),
        schedule.format as FeedFormat,
        schedule.column ? { column: schedule.column } : {},
      );
      bytes = count;
      badLines = parsed.errors.slice(0, 20);
      const contentHash = hash.digest('hex');
      held = { ...got.validators, contentHash };
      const current = await prisma.feed.findUnique({ where: { name }, select: { entryCount: true } });
      if (current && contentHash === schedule.contentHash) {
        outcome = 'unchanged';
        entries = current.entryCount;
      } else {
        const imported = await importFeed(prisma, {
          name,
          format: schedule.format as FeedFormat,
          source: got.url,
          parsed,
          fromSchedule: true,
          allowPartial: schedule.allowPartial,
          now: at,
          ...(schedule.weight !== null ? { weight: schedule.weight } : {}),
        });
        outcome = 'imported';
        entries = imported.entries;
      }
    }
  } catch (e) {
    if (e instanceof DownloadError) {
      httpStatus = e.httpStatus ?? httpStatus;
      error = e.message;
      outcome = 'failed';
      held = undefined;
    } else if (isAppError(e) && e.code === 'invalid_request') {
      error = e.message;
      outcome = 'refused';
      held = undefined;
    } else throw e;
  }
  const last: LastFetch = {
    at,
    outcome,
    httpStatus,
    entries,
    error,
    durationMs: clock().getTime() - at.getTime(),
    bytes,
  };
  const saved = await recordFetch(prisma, schedule, last, held);
  return { name, ...last, badLines, schedule: scheduleInfo(saved) };
}
