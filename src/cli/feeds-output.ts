import type { FetchResult } from '../domain/feeds/fetch-feed.ts';
import type { FeedListing, LastFetch } from '../domain/feeds/schedule.ts';
import { feedRows, formatTable, printBadLines } from './output.ts';

/** Human-readable `feeds list`, `feeds add` and `feeds fetch` (`--json` prints the raw result). */
const when = (d: Date | string) =>
  new Date(d)
    .toISOString()
    .replace('T', ' ')
    .replace(/:\d\d\.\d+Z$/, ' UTC');
const n = (v: number) => v.toLocaleString('en-US');

const OUTCOMES: Record<LastFetch['outcome'], string> = {
  imported: 'imported',
  not_modified: 'not modified',
  unchanged: 'unchanged (same bytes)',
  refused: 'refused (the feed keeps what it held)',
  failed: 'failed (the feed keeps what it held)',
};

export function describeFetch(f: LastFetch): string {
  const status = f.httpStatus === null ? '' : `HTTP ${f.httpStatus}, `;
  const entries = f.entries === null ? '' : `, ${n(f.entries)} entries`;
  return `${when(f.at)}: ${status}${OUTCOMES[f.outcome]}${entries}${f.error ? ` — ${f.error}` : ''}`;
}

/** The table of every feed, then for each one read from a URL its schedule and its last fetch. */
function printListing(feeds: FeedListing[]): void {
  if (feeds.length === 0) {
    console.log('no feeds (add one with "feeds import FILE --name NAME" or "feeds add NAME --url URL --every 1h")');
    return;
  }
  console.log(formatTable(feedRows(feeds)));
  const fetched = feeds.filter((f) => f.schedule);
  if (fetched.length) console.log('');
  for (const { name, schedule: s } of fetched) {
    console.log(
      `${name}: every ${s!.every}, next fetch ${when(s!.nextFetchAt)}; last fetch ${s!.lastFetch ? describeFetch(s!.lastFetch) : 'none yet'}`,
    );
  }
}

export function printFeeds(command: string, result: unknown): boolean {
  if (command === 'feeds list') printListing(result as FeedListing[]);
  else if (command === 'feeds add' || command === 'feeds fetch') {
    const r = result as FetchResult;
    if (command === 'feeds add')
      console.log(`Feed "${r.name}" is fetched from ${r.schedule.url} every ${r.schedule.every}.`);
    console.log(`Fetched ${describeFetch(r)}.`);
    if (r.outcome === 'failed' || r.outcome === 'refused') console.log(`Next try ${when(r.schedule.nextFetchAt)}.`);
    printBadLines(r.badLines, 0);
  } else return false;
  return true;
}

/** A fetch that kept the previous version ends the command with exit status 1 (the schedule stays). */
export function feedsExitCode(command: string, result: unknown): number {
  if (command !== 'feeds add' && command !== 'feeds fetch') return 0;
  const { outcome } = result as FetchResult;
  return outcome === 'failed' || outcome === 'refused' ? 1 : 0;
}
