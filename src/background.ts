import type { Config } from './config.ts';
import type { Logger } from './platform/log.ts';
import type { Database } from './platform/db/database.ts';
import { AUTOVACUUM_NAPTIME_MS } from './platform/db/pglite-autovacuum.ts';
import { subscribeInvalidations, type InvalidationBus } from './platform/counters/invalidation.ts';
import { redisTargetOf } from './platform/counters/redis-connection.ts';
import type { KeyVerifier } from './domain/access/verifier.ts';
import { sweepIdempotency } from './domain/memory/idempotency.ts';
import type { NetworkIndex } from './domain/network/index.ts';
import { type PublicationCache, startPublishSchedule } from './domain/publishing/index.ts';
import { startFollowing, type Services } from './domain/services.ts';
import { startWatchDetection } from './domain/watches/detection.ts';
import { startFeedSchedule } from './domain/feeds/scheduler.ts';
import type { Mailer } from './domain/mail/outbox.ts';
import type { ProviderCancellations } from './domain/billing/cancellations.ts';
import type { registerModelGauges } from './domain/observability/model-gauges.ts';
import { serveAdmin, type AdminServer } from './transport/admin/socket.ts';
import { runCommand } from './transport/admin/commands.ts';

type Parts = {
  config: Config;
  db: Database;
  log: Logger;
  network: NetworkIndex;
  publications: PublicationCache;
  services: Services;
  verifier: KeyVerifier;
  pepper: string;
  mailer: Mailer;
  cancellations: ProviderCancellations | null;
  /** The model report behind the risk_model_* gauges, computed in the background once started. */
  modelGauges: ReturnType<typeof registerModelGauges>;
  announce?: (message: string) => Promise<unknown>;
  /** True when this process owns an embedded database directory: the CLI then reaches it through the admin socket. */
  embeddedOwner: boolean;
  /** Receives the Redis invalidation listener once subscribed (REDIS_URL only). */
  onBus: (bus: InvalidationBus) => void;
};

type Stop = () => unknown;

/**
 * Everything the service runs beside its requests, started in one step (`start`) and stopped in two: what must end
 * before the HTTP drain (schedules, followers, timers: nothing new begins while requests finish) and what must end
 * after it (the loops a request may still wake, the admin socket). Building it starts nothing.
 */
export class BackgroundWork {
  private beforeDrain: Stop[] = [];
  private afterDrain: Stop[] = [];

  constructor(private readonly parts: Parts) {}

  async start(): Promise<void> {
    if (this.beforeDrain.length) return; // started already
    const { config, db, log, network, publications, services, verifier, mailer, cancellations } = this.parts;
    publications.start(config.publicationRefreshMs);
    this.beforeDrain.push(() => publications.stop());
    this.beforeDrain.push(startFollowing(services));
    this.beforeDrain.push(this.parts.modelGauges.start({ prisma: db.prisma, network, log }));
    if (config.publishIntervalMs > 0)
      this.beforeDrain.push(
        startPublishSchedule({
          prisma: db.prisma,
          network,
          intervalMs: config.publishIntervalMs,
          keep: config.publicationsKept,
          log,
          onPublished: () => publications.refresh().then(() => {}),
        }),
      );
    if (config.watchDetectionMs > 0)
      this.beforeDrain.push(
        startWatchDetection({
          prisma: db.prisma,
          network,
          publications,
          community: services.community,
          ipMemory: services.ipMemory,
          keyCountries: services.keyCountries,
          log,
          intervalMs: config.watchDetectionMs,
          onEvents: () => services.webhooks.wake(),
        }),
      );
    this.beforeDrain.push(
      ...this.timers(),
      // a download in progress is cancelled and recorded before the database closes
      startFeedSchedule({
        prisma: db.prisma,
        limits: config.feedFetch,
        checkIntervalMs: config.feedFetch.checkIntervalMs,
        log,
      }),
    );
    const redisTarget = redisTargetOf(config);
    if (redisTarget) {
      const bus = await subscribeInvalidations(
        redisTarget,
        config.redisKeyPrefix,
        (m) => verifier.invalidate(m.startsWith('key:') ? m.slice(4) : undefined),
        log,
      );
      this.parts.onBus(bus);
    }
    mailer.start();
    cancellations?.start();
    services.webhooks.start();
    const admin = await this.admin();
    this.afterDrain.push(
      () => services.webhooks.stop(), // a send in progress finishes (at most 10 s) and is recorded
      () => admin?.close(),
      () => cancellations?.stop(),
      () => mailer.stop(),
    );
  }

  async stopBeforeDrain(): Promise<void> {
    for (const stop of this.beforeDrain.splice(0)) await stop();
  }

  async stopAfterDrain(): Promise<void> {
    for (const stop of this.afterDrain.splice(0)) await stop();
  }

  private timers(): Stop[] {
    const { db, log, verifier } = this.parts;
    const every = (ms: number, work: () => Promise<unknown>): Stop => {
      const timer = setInterval(() => void work(), ms);
      timer.unref();
      return () => clearInterval(timer);
    };
    return [
      every(10_000, () => verifier.flushLastUsed().catch((e) => log.warn('lastUsed flush failed', { err: e }))),
      every(3600_000, () => sweepIdempotency(db.prisma).catch((e) => log.warn('idempotency sweep failed', { err: e }))),
      ...(db.autovacuum ? [every(AUTOVACUUM_NAPTIME_MS, () => autovacuum(db, log))] : []),
    ];
  }

  /** The CLI cannot open the PGlite directory while this process holds it, so it asks through this socket instead. */
  private async admin(): Promise<AdminServer | null> {
    const { config, db, log, pepper, verifier, publications, network, announce } = this.parts;
    if (!this.parts.embeddedOwner) return null;
    return serveAdmin(
      config.dataDir,
      (command, args) =>
        runCommand(command, args, {
          db,
          dataDir: config.dataDir,
          feedFetch: config.feedFetch,
          pepper,
          verifier,
          publications,
          network: async () => network,
          publicationsKept: config.publicationsKept,
          ...(announce ? { announce: async (m: string) => void (await announce(m)) } : {}),
          audit: { write: (msg, fields) => log.audit(msg, fields), via: 'admin socket' },
        }),
      log,
    );
  }
}

/** Embedded only: a round of autovacuum's work, which PGlite has no worker for (pglite-autovacuum.ts). A failed round
 *  is only logged: the service runs without it, slower. */
export async function autovacuum(db: Database, log: Logger): Promise<void> {
  try {
    const tables = (await db.autovacuum?.()) ?? [];
    if (tables.length) log.debug('embedded database vacuumed and analyzed', { tables });
  } catch (e) {
    log.warn('embedded autovacuum failed', { err: e });
  }
}
