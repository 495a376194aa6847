import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Metrics } from '../../platform/metrics.ts';
import type { Logger } from '../../platform/log.ts';
import type { PublicationCache } from '../publishing/index.ts';

/**
 * The service's state as gauges read at scrape time: the publication this process scores from, the imported
 * feeds, and the two outboxes (mail to deliver, provider cancellations to send). Held mail (no SMTP_URL) is not
 * a backlog: nothing will send it. A scrape reads the database once for all of them (three small statements,
 * each answered from an index or a table of a few rows), however many gauges ask.
 */
type StateReading = {
  feeds: Array<{ name: string; entryCount: number; importedAt: Date }>;
  outboxes: Array<{ outbox: string; backlog: number; oldest: Date | null }>;
};

async function readState(prisma: PrismaClient): Promise<StateReading> {
  const [feeds, mail, cancellations] = await Promise.all([
    prisma.feed.findMany({ select: { name: true, entryCount: true, importedAt: true }, orderBy: { name: 'asc' } }),
    prisma.mailOutbox.aggregate({ where: { status: 'pending' }, _count: { _all: true }, _min: { createdAt: true } }),
    prisma.providerCancellation.aggregate({ where: { status: 'pending' }, _count: { _all: true }, _min: { createdAt: true } }),
  ]);
  return {
    feeds,
    outboxes: [
      { outbox: 'mail', backlog: mail._count._all, oldest: mail._min.createdAt },
      { outbox: 'provider_cancellation', backlog: cancellations._count._all, oldest: cancellations._min.createdAt },
    ],
  };
}

/** One database reading shared by every gauge of a scrape (the registry collects its gauges concurrently). */
function sharedReading<T>(read: () => Promise<T>, onError: (e: unknown) => void): () => Promise<T> {
  let current: Promise<T> | null = null;
  return () => {
    current ??= read().catch((e) => { onError(e); throw e; }).finally(() => { current = null; });
    return current;
  };
}

const ageSeconds = (since: Date, nowMs: number) => Math.max(0, (nowMs - since.getTime()) / 1000);

export function registerStateGauges(metrics: Metrics, deps: { prisma: PrismaClient; publications: PublicationCache; log: Logger; now?: () => number }): void {
  const now = deps.now ?? Date.now;
  const state = sharedReading(() => readState(deps.prisma), (e) => deps.log.warn('metrics: database state not read; its gauges are left out of this scrape', { err: e }));

  // With several workers: the oldest publication any of them scores from, and its age; the database's state once.
  metrics.stateGauge('risk_publication_version', 'Version of the publication this process scores from (0: none yet).', [], 'min',
    () => [[{}, deps.publications.current().version]]);
  metrics.stateGauge('risk_publication_age_seconds', 'Seconds since the publication this process scores from was published (NaN before the first).', [], 'max', () => {
    const at = deps.publications.current().publishedAt;
    return at ? [[{}, ageSeconds(at, now())]] : [];
  });
  metrics.stateGauge('risk_feed_entries', 'Networks listed by each imported feed.', ['feed'], 'first',
    async () => (await state()).feeds.map((f) => [{ feed: f.name }, f.entryCount]));
  metrics.stateGauge('risk_feed_age_seconds', 'Seconds since each feed was last imported.', ['feed'], 'first',
    async () => (await state()).feeds.map((f) => [{ feed: f.name }, ageSeconds(f.importedAt, now())]));
  metrics.stateGauge('risk_outbox_backlog', 'Rows waiting to be sent, by outbox (mail, provider_cancellation).', ['outbox'], 'first',
    async () => (await state()).outboxes.map((o) => [{ outbox: o.outbox }, o.backlog]));
  metrics.stateGauge('risk_outbox_oldest_age_seconds', 'Age of the oldest row waiting in each outbox (0 when it is empty).', ['outbox'], 'first',
    async () => (await state()).outboxes.map((o) => [{ outbox: o.outbox }, o.oldest ? ageSeconds(o.oldest, now()) : 0]));
}
