import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Metrics } from '../../platform/metrics.ts';
import type { Logger } from '../../platform/log.ts';
import type { PublicationCache } from '../publishing/index.ts';
import { listFeedsWithSchedules, type FeedListing } from '../feeds/schedule.ts';

/**
 * The service's state as gauges read at scrape time: the publication this process scores from, the imported
 * feeds and the last fetch of those read from a URL, and the three outboxes (mail to deliver, provider
 * cancellations and webhook deliveries to send). Held mail (no SMTP_URL) is not a backlog: nothing will send it. A scrape reads the
 * database once for all of them (five small statements,
 * each answered from an index or a table of a few rows), however many gauges ask.
 */
type StateReading = {
  feeds: FeedListing[];
  outboxes: Array<{ outbox: string; backlog: number; oldest: Date | null }>;
};

async function readState(prisma: PrismaClient): Promise<StateReading> {
  const [feeds, mail, cancellations, webhooks] = await Promise.all([
    listFeedsWithSchedules(prisma),
    prisma.mailOutbox.aggregate({ where: { status: 'pending' }, _count: { _all: true }, _min: { createdAt: true } }),
    prisma.providerCancellation.aggregate({
      where: { status: 'pending' },
      _count: { _all: true },
      _min: { createdAt: true },
    }),
    prisma.webhookDelivery.aggregate({
      where: { status: 'pending' },
      _count: { _all: true },
      _min: { createdAt: true },
    }),
  ]);
  return {
    feeds,
    outboxes: [
      { outbox: 'mail', backlog: mail._count._all, oldest: mail._min.createdAt },
      { outbox: 'provider_cancellation', backlog: cancellations._count._all, oldest: cancellations._min.createdAt },
      { outbox: 'webhook', backlog: webhooks._count._all, oldest: webhooks._min.createdAt },
    ],
  };
}

/** One database reading shared by every gauge of a scrape (the registry collects its gauges concurrently). */
function sharedReading<T>(read: () => Promise<T>, onError: (e: unknown) => void): () => Promise<T> {
  let current: Promise<T> | null = null;
  return () => {
    current ??= read()
      .catch((e) => {
        onError(e);
        throw e;
      })
      .finally(() => {
        current = null;
      });
    return current;
  };
}

const ageSeconds = (since: Date, nowMs: number) => Math.max(0, (nowMs - since.getTime()) / 1000);

export function registerStateGauges(
  metrics: Metrics,
  deps: { prisma: PrismaClient; publications: PublicationCache; log: Logger; now?: () => number },
): void {
  const now = deps.now ?? Date.now;
  const state = sharedReading(
    () => readState(deps.prisma),
    (e) => deps.log.warn('metrics: database state not read; its gauges are left out of this scrape', { err: e }),
  );

  // With several workers: the oldest publication any of them scores from, and its age; the database's state once.
  metrics.stateGauge(
    'risk_publication_version',
    'Version of the publication this process scores from (0: none yet).',
    [],
    'min',
    () => [[{}, deps.publications.current().version]],
  );
  metrics.stateGauge(
    'risk_publication_age_seconds',
    'Seconds since the publication this process scores from was published (NaN before the first).',
    [],
    'max',
    () => {
      const at = deps.publications.current().publishedAt;
      return at ? [[{}, ageSeconds(at, now())]] : [];
    },
  );
  metrics.stateGauge('risk_feed_entries', 'Networks listed by each imported feed.', ['feed'], 'first', async () =>
    (await state()).feeds.filter((f) => f.importedAt).map((f) => [{ feed: f.name }, f.entries]),
  );
  metrics.stateGauge(
    'risk_feed_age_seconds',
    'Seconds since each feed was last imported.',
    ['feed'],
    'first',
    async () =>
      (await state()).feeds.flatMap((f) => (f.importedAt ? [[{ feed: f.name }, ageSeconds(f.importedAt, now())]] : [])),
  );
  // Feeds read from a URL: the outcome of the last fetch (1 on its series) and when one last succeeded, so an
  // alert can fire on a feed that keeps failing while it still serves the version it held.
  metrics.stateGauge(
    'risk_feed_fetch_last_outcome',
    'Outcome of the last fetch of each feed read from a URL (1 on the series of that outcome).',
    ['feed', 'outcome'],
    'first',
    async () =>
      (await state()).feeds.flatMap((f) =>
        f.schedule?.lastFetch ? [[{ feed: f.name, outcome: f.schedule.lastFetch.outcome }, 1]] : [],
      ),
  );
  metrics.stateGauge(
    'risk_feed_fetch_last_success_timestamp_seconds',
    'Unix time of the last fetch of each URL feed that did not fail (imported, not_modified or unchanged).',
    ['feed'],
    'first',
    async () =>
      (await state()).feeds.flatMap((f) =>
        f.schedule?.lastSuccessAt ? [[{ feed: f.name }, f.schedule.lastSuccessAt.getTime() / 1000]] : [],
      ),
  );
  metrics.stateGauge(
    'risk_outbox_backlog',
    'Rows waiting to be sent, by outbox (mail, provider_cancellation).',
    ['outbox'],
    'first',
    async () => (await state()).outboxes.map((o) => [{ outbox: o.outbox }, o.backlog]),
  );
  metrics.stateGauge(
    'risk_outbox_oldest_age_seconds',
    'Age of the oldest row waiting in each outbox (0 when it is empty).',
    ['outbox'],
    'first',
    async () => (await state()).outboxes.map((o) => [{ outbox: o.outbox }, o.oldest ? ageSeconds(o.oldest, now()) : 0]),
  );
}
