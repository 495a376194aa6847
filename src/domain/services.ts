import type { PrismaClient } from '../generated/prisma/client.ts';
import type { NetworkIndex } from './network/index.ts';
import type { PublicationCache } from './publishing/index.ts';
import type { CounterStore } from '../platform/counters/types.ts';
import type { ScoreDeps } from './lookups/score-call.ts';
import type { Logger } from '../platform/log.ts';
import type { Metrics } from '../platform/metrics.ts';
import type { BatchObserver } from './memory/writes.ts';
import { TierCatalog } from './metering/tiers.ts';
import { ScoreMeter } from './metering/meter.ts';
import { CommunitySignals } from './community/signal.ts';
import { IpMemoryCache, IP_MEMORY_FOLLOW_MS } from './memory/ip-memory.ts';
import { OverrideCache, OVERRIDE_FOLLOW_MS } from './overrides/rule-cache.ts';
import { KeyCountryTracker } from './watches/key-countries.ts';
import { WebhookDeliverer } from './webhooks/deliverer.ts';
import type { MailMessage } from './mail/outbox.ts';

/** The long-lived parts every resolver may use; built once by createApp. */
export type Services = ScoreDeps & {
  prisma: PrismaClient;
  network: NetworkIndex;
  publications: PublicationCache;
  counters: CounterStore;
  baseUrl: string;
  log: Logger;
  observeBatch?: BatchObserver | undefined;
  /** The countries API keys are used from (key.new_country): noted per request, recorded by watch detection. */
  keyCountries: KeyCountryTracker;
  /** Reports per transaction of a bulk report: smaller on the embedded database, which runs on this event loop
   *  (memory/report-bulk.ts). */
  bulkChunkSize: number;
  /** The webhook delivery loop, and the deps of the webhook functions (webhookDeps). */
  webhooks: WebhookDeliverer;
};

/** A window's lookups are sent to the counters in one batch per COMMUNITY_FLUSH_MS, and its snapshot read
 *  COMMUNITY_SETTLE_MS after it ends, when every process has sent its last batch (docs/decisions: community flush). */
const COMMUNITY_FLUSH_MS = 25;
const COMMUNITY_SETTLE_MS = 1_000;

type Parts = Pick<
  Services,
  'prisma' | 'network' | 'publications' | 'counters' | 'baseUrl' | 'log' | 'bulkChunkSize'
> & {
  metrics?: Metrics;
  /** WEBHOOK_ALLOWED_HOSTS, and how to queue an e-mail (the control plane's Mailer). */
  webhookAllowedHosts: readonly string[];
  /** SPIKE_MIN_REQUESTERS: distinct requesters a window needs to be a community spike. */
  spikeMinRequesters?: number | undefined;
  mail: (message: MailMessage) => Promise<unknown>;
};

/** The domain's services over the opened platform (database, counters, network data, publications). */
export async function createServices(parts: Parts): Promise<Services> {
  const { prisma, counters, log, metrics } = parts;
  const services: Services = {
    prisma,
    network: parts.network,
    publications: parts.publications,
    counters,
    baseUrl: parts.baseUrl,
    log,
    bulkChunkSize: parts.bulkChunkSize,
    observeScore: metrics,
    observeBatch: metrics && ((writer, size) => metrics.groupCommit(writer, size)),
    tiers: await TierCatalog.load(prisma),
    meter: new ScoreMeter(counters),
    community: new CommunitySignals(counters, {
      flushMs: COMMUNITY_FLUSH_MS,
      settleMs: COMMUNITY_SETTLE_MS,
      spikeMinRequesters: parts.spikeMinRequesters,
      onRecordError: (e) => log.warn('community lookups not recorded', { err: e }),
      onReadError: (e) => log.warn('community signal not read; answered ok: false', { err: e }),
    }),
    ipMemory: new IpMemoryCache(prisma),
    overrides: new OverrideCache(prisma),
    keyCountries: new KeyCountryTracker(parts.network),
    webhooks: new WebhookDeliverer({
      prisma,
      allowedHosts: parts.webhookAllowedHosts,
      log,
      baseUrl: parts.baseUrl,
      mail: parts.mail,
      now: () => new Date(),
    }),
  };
  await Promise.all([services.ipMemory.catchUp(), services.overrides.catchUp()]);
  return services;
}

/** Starts following the tables other processes write (override rules, workspace memory); returns how to stop. */
export function startFollowing(services: Services): () => void {
  const { log } = services;
  services.overrides.follow(OVERRIDE_FOLLOW_MS, (e) => log.warn('override rules catch-up failed', { err: e }));
  services.ipMemory.follow(IP_MEMORY_FOLLOW_MS, (e) => log.warn('ip memory catch-up failed', { err: e }));
  return () => {
    services.ipMemory.stop();
    services.overrides.stop();
  };
}
