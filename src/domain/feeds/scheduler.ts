/**
 * The server's feed timer: every `checkIntervalMs` it takes the feeds that are due, one at a time (claimDueFeed:
 * one server of several sharing PostgreSQL fetches each), fetches each (fetch-feed.ts) and logs how it went.
 * One fetch at a time: parsing and importing a list is this process's work. Nothing is thrown out of the timer.
 * Stopping cancels a download in progress (it is recorded as failed and retried after the next start).
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Logger } from '../../platform/log.ts';
import type { DownloadLimits } from './download.ts';
import { urlForLog } from './download.ts';
import { fetchFeed, type FetchResult } from './fetch-feed.ts';
import { claimDueFeed } from './schedule.ts';

export type FeedScheduleOptions = {
  prisma: PrismaClient;
  limits: DownloadLimits;
  checkIntervalMs: number;
  log: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
};

export function logFetch(log: FeedScheduleOptions['log'], r: FetchResult): void {
  const fields = {
    feed: r.name,
    url: urlForLog(r.schedule.url),
    outcome: r.outcome,
    httpStatus: r.httpStatus,
    entries: r.entries,
    bytes: r.bytes,
    durationMs: r.durationMs,
    ...(r.error ? { error: r.error } : {}),
  };
  if (r.outcome === 'imported') log.info('feed fetched', fields);
  else if (r.outcome === 'failed' || r.outcome === 'refused') log.warn('feed fetch kept the previous version', fields);
  else log.debug('feed fetched', fields);
}

/** Fetches every feed due now; exported so a test can run one round without waiting for the timer. */
export async function fetchDueFeeds(opts: FeedScheduleOptions, stop?: AbortSignal): Promise<FetchResult[]> {
  const results: FetchResult[] = [];
  while (!stop?.aborted) {
    const due = await claimDueFeed(opts.prisma);
    if (!due) break;
    const r = await fetchFeed(opts.prisma, due.name, opts.limits, stop ? { stop } : {});
    logFetch(opts.log, r);
    results.push(r);
  }
  return results;
}

/** Starts the timer; the returned function stops it and waits for a fetch in progress to end. */
export function startFeedSchedule(opts: FeedScheduleOptions): () => Promise<void> {
  const stop = new AbortController();
  let round: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout;
  const next = () => {
    timer = setTimeout(() => {
      round = fetchDueFeeds(opts, stop.signal)
        .catch((e) => opts.log.error('feed fetch round failed', { err: e }))
        .finally(() => {
          if (!stop.signal.aborted) next();
        });
    }, opts.checkIntervalMs);
    timer.unref();
  };
  next();
  return async () => {
    stop.abort();
    clearTimeout(timer);
    await round;
  };
}
