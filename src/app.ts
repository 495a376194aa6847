import type { Server } from 'node:http';
import { networkOptions, type Config } from './config.ts';
import { createLogger, type Logger } from './platform/log.ts';
import { Metrics } from './platform/metrics.ts';
import { openDatabase, type Database } from './platform/db/database.ts';
import { AUTOVACUUM_NAPTIME_MS } from './platform/db/pglite-autovacuum.ts';
import { openCounterStore } from './platform/counters/open.ts';
import { timedCounterStore } from './platform/counters/timed.ts';
import type { CounterStore } from './platform/counters/types.ts';
import { subscribeInvalidations } from './platform/counters/invalidation.ts';
import { KeyVerifier } from './domain/access/verifier.ts';
import { resolvePepper } from './domain/access/pepper.ts';
import { sweepIdempotency } from './domain/memory/idempotency.ts';
import type { NetworkIndex } from './domain/network/index.ts';
import { loadNetworkDataInWorker } from './domain/network/load-in-worker.ts';
import { PublicationCache, startPublishSchedule } from './domain/publishing/index.ts';
import { createServices, type Services } from './domain/services.ts';
import { startWatchDetection } from './domain/watches/detection.ts';
import { BULK_CHUNK_SIZE } from './domain/memory/report-bulk.ts';
import { startFeedSchedule } from './domain/feeds/scheduler.ts';
import { registerStateGauges } from './domain/observability/state-gauges.ts';
import { createHttpServer } from './transport/http/server.ts';
import { healthRoutes } from './transport/http/health.ts';
import { metricsRoute } from './transport/http/metrics-route.ts';
import { trustedProxies } from './transport/http/client-ip.ts';
import type { ApiDeps } from './transport/http/request-context.ts';
import { createRestRouter } from './transport/rest/router.ts';
import { createGraphQLHandler } from './transport/graphql/yoga.ts';
import { serveGraphiqlAsset } from './transport/graphql/graphiql.ts';
import { createMcpHandler } from './transport/mcp/http.ts';
import { createWorkspaceServer } from './transport/web/workspace-server.ts';
import { serveAdmin, type AdminServer } from './cli/admin-socket.ts';
import { runCommand } from './cli/commands.ts';

export type AppOptions = {
  log?: Logger;
  inMemoryDatabase?: boolean;
  /** The network index, loaded or loading (tests share one per file; main.ts starts it before loading this module).
   *  Without it, createApp starts building one in a worker thread. */
  network?: NetworkIndex | Promise<NetworkIndex>;
};
export type App = {
  server: Server;
  db: Database;
  counters: CounterStore;
  services: Services;
  verifier: KeyVerifier;
  pepper: string;
  log: Logger;
  metrics: Metrics;
  /** Binds the HTTP port (0 = any free port) and returns the base URL actually served. */
  listen(port?: number, host?: string): Promise<string>;
  /** Readiness withdrawn (/readyz 503) while every request is still served: what SIGTERM does first (DRAIN_DELAY_MS). */
  withdraw(): void;
  /** Graceful: stop accepting, let in-flight requests finish (up to the grace period), release everything. */
  close(): Promise<void>;
};

/** Builds the whole service without binding a port; only main.ts (or a test) listens. Wiring only: platform, domain, transports. */
export async function createApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const log = opts.log ?? createLogger(config.logLevel);
  const metrics = new Metrics();
  // The network index is built in a worker thread beside opening the database and loading the publication.
  const networkLoad = Promise.resolve(opts.network ?? loadNetworkDataInWorker(networkOptions(config)));
  networkLoad.catch(() => {}); // awaited below; never an unhandled rejection meanwhile

  // Platform.
  const db = await openDatabase({
    databaseUrl: config.databaseUrl, dataDir: config.dataDir, inMemory: opts.inMemoryDatabase ?? false, preparedStatements: config.databasePreparedStatements,
    warn: (msg, fields) => log.warn(msg, fields), observeStatement: (kind, seconds) => metrics.databaseStatement(kind, seconds),
  });
  let counters: CounterStore;
  try {
    const migrated = await db.migrate();
    if (migrated.applied.length) log.info('database migrated', { applied: migrated.applied, backend: db.kind });
    await autovacuum(db, log);
    counters = timedCounterStore(await openCounterStore(config, log), (operation, seconds) => metrics.counterStoreCall(operation, seconds));
  } catch (e) {
    await db.close(); // release the data directory (PGlite) before reporting the failure
    throw e;
  }

  // Domain.
  const publications = new PublicationCache(db.prisma, { onError: (e) => log.warn('publication refresh failed', { err: e }) });
  const [network] = await Promise.all([networkLoad, publications.load()]); // the database builds the publication meanwhile
  log.info('network data loaded', { ...network.stats() });
  publications.start(config.publicationRefreshMs);
  const stopPublishing = config.publishIntervalMs > 0
    ? startPublishSchedule({ prisma: db.prisma, network, intervalMs: config.publishIntervalMs, keep: config.publicationsKept, log, onPublished: () => publications.refresh().then(() => {}) })
    : () => {};
  const stopFeeds = startFeedSchedule({ prisma: db.prisma, limits: config.feedFetch, checkIntervalMs: config.feedFetch.checkIntervalMs, log });
  const bulkChunkSize = db.kind === 'pglite' ? BULK_CHUNK_SIZE.embedded : BULK_CHUNK_SIZE.postgres;
  const services = await createServices({
    prisma: db.prisma, network, publications, counters, baseUrl: config.baseUrl, log, metrics, bulkChunkSize,
    // The control plane's Mailer (built with the transports below; only called once deliveries run)
    webhookAllowedHosts: config.webhookAllowedHosts, mail: (m) => workspace.deps.mailer.enqueue(m),
  });
  registerStateGauges(metrics, { prisma: db.prisma, publications, log });
  const stopWatches = config.watchDetectionMs > 0
    ? startWatchDetection({ prisma: db.prisma, network, publications, community: services.community, keyCountries: services.keyCountries, log, intervalMs: config.watchDetectionMs, onEvents: () => services.webhooks.wake() })
    : () => {};
  const pepper = resolvePepper(config.apiKeyPepper, config.dataDir);
  const verifier = new KeyVerifier(db.prisma, pepper, config.keyCacheTtlMs);
  const bus = config.redisUrl
    ? await subscribeInvalidations(config.redisUrl, config.redisKeyPrefix, (m) => verifier.invalidate(m.startsWith('key:') ? m.slice(4) : undefined), log)
    : null;
  const announce = bus ? (m: string) => bus.publish(m) : undefined;
  const timers = [
    setInterval(() => { verifier.flushLastUsed().catch((e) => log.warn('lastUsed flush failed', { err: e })); }, 10_000),
    setInterval(() => { sweepIdempotency(db.prisma).catch((e) => log.warn('idempotency sweep failed', { err: e })); }, 3600_000),
    ...(db.autovacuum ? [setInterval(() => { void autovacuum(db, log); }, AUTOVACUUM_NAPTIME_MS)] : []),
  ];
  for (const t of timers) t.unref();

  // Transports.
  const proxies = config.trustedProxies.length ? trustedProxies(config.trustedProxies) : null;
  const deps: ApiDeps = { services, verifier, config, log, proxies };
  const workspace = createWorkspaceServer({ ...deps, pepper, announce });
  const http = createHttpServer([
    ['/risk_api/*', createRestRouter(deps)],
    ['/graphql', createGraphQLHandler(deps)],
    ['/graphiql/*', serveGraphiqlAsset],
    ['/mcp', createMcpHandler(deps)],
    ['/workspace/*', workspace.controlPlane],
    ['/webhooks/paypal', workspace.webhook],
    ...healthRoutes({ database: () => db.ping(), counters: () => counters.ping() }, () => http.ready()),
    ['/metrics', metricsRoute(metrics, config.metricsToken)],
  ], {
    log, metrics, proxies, requestTimeoutMs: config.requestTimeoutMs, shutdownGraceMs: config.shutdownGraceMs,
    notFound: (path) => `Nothing at ${path}. The API lives under /risk_api/ and /graphql; the agent-protocol (MCP) server at /mcp.`,
  });

  services.webhooks.start();

  let admin: AdminServer | null = null;
  if (db.kind === 'pglite' && !opts.inMemoryDatabase) {
    // The CLI cannot open the PGlite directory while we hold it, so it asks us instead.
    admin = await serveAdmin(config.dataDir, (command, args) => runCommand(command, args, {
      db, dataDir: config.dataDir, feedFetch: config.feedFetch, pepper, verifier, publications, network: async () => network, publicationsKept: config.publicationsKept, ...(announce ? { announce } : {}),
      audit: { write: (msg, fields) => log.audit(msg, fields), via: 'admin socket' },
    }), log);
  }

  return {
    server: http.server, db, counters, services, verifier, pepper, log, metrics,
    listen: (port = config.port, host = config.host) => http.listen(port, host),
    withdraw: () => http.withdraw(),
    async close() {
      for (const t of timers) clearInterval(t);
      publications.stop();
      services.ipMemory.stop();
      services.overrides.stop();
      stopPublishing();
      stopWatches();
      await stopFeeds(); // a download in progress is cancelled and recorded before the database closes
      await http.drain();
      await services.webhooks.stop(); // a send in progress finishes (at most 10 s) and is recorded
      await admin?.close();
      await workspace.close();
      await verifier.flushLastUsed().catch(() => {});
      await services.community.flush(); // the last tally of lookups, before the counters close
      await bus?.close();
      await counters.close();
      await db.close();
    },
  };
}

/** Embedded only: a round of autovacuum's work, which PGlite has no worker for (pglite-autovacuum.ts). A failed round
 *  is only logged: the service runs without it, slower. */
async function autovacuum(db: Database, log: Logger): Promise<void> {
  try {
    const tables = (await db.autovacuum?.()) ?? [];
    if (tables.length) log.debug('embedded database vacuumed and analyzed', { tables });
  } catch (e) {
    log.warn('embedded autovacuum failed', { err: e });
  }
}
