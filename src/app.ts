import type { Server } from 'node:http';
import { networkOptions, type Config } from './config.ts';
import { createLogger, type Logger } from './platform/log.ts';
import { Metrics } from './platform/metrics.ts';
import { openDatabase, type Database } from './platform/db/database.ts';
import { openCounterStore } from './platform/counters/open.ts';
import { timedCounterStore } from './platform/counters/timed.ts';
import type { CounterStore } from './platform/counters/types.ts';
import type { InvalidationBus } from './platform/counters/invalidation.ts';
import { redisTargetOf } from './platform/counters/redis-connection.ts';
import { KeyVerifier } from './domain/access/verifier.ts';
import { establishPepper } from './domain/access/pepper.ts';
import type { NetworkIndex } from './domain/network/index.ts';
import { loadNetworkDataInWorker } from './domain/network/load-in-worker.ts';
import { PublicationCache } from './domain/publishing/index.ts';
import { createServices, type Services } from './domain/services.ts';
import { BULK_CHUNK_SIZE } from './domain/memory/report-bulk.ts';
import { registerStateGauges } from './domain/observability/state-gauges.ts';
import { registerModelGauges } from './domain/observability/model-gauges.ts';
import { Mailer } from './domain/mail/outbox.ts';
import { smtpTransport } from './domain/mail/smtp.ts';
import { PayPalProvider } from './domain/billing/paypal.ts';
import { ProviderCancellations } from './domain/billing/cancellations.ts';
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
import { autovacuum, BackgroundWork } from './background.ts';

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
  /**
   * The one step that starts the service: the background work (timers, followers, schedules, the mail, webhook and
   * cancellation loops, the Redis invalidation listener, the embedded database's admin socket), then the HTTP port
   * (0 = any free port). Returns the base URL actually served.
   */
  start(port?: number, host?: string): Promise<string>;
  /** Readiness withdrawn (/readyz 503) while every request is still served: SIGTERM's first step (DRAIN_DELAY_MS). */
  withdraw(): void;
  /** Graceful: stop accepting, let in-flight requests finish (up to the grace period), release everything. */
  close(): Promise<void>;
};

/**
 * The composition root: opens the platform (database, counters, network data), builds the domain's services and the
 * transports over them, and starts nothing; `start()` is the one step that does. Only main.ts (or a test) starts it.
 */
export async function createApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const log = opts.log ?? createLogger(config.logLevel);
  const metrics = new Metrics();
  // The network index is built in a worker thread beside opening the database and loading the publication.
  const networkLoad = Promise.resolve(
    opts.network ?? loadNetworkDataInWorker(networkOptions(config), config.networkImageDir),
  );
  networkLoad.catch(() => {}); // awaited below; never an unhandled rejection meanwhile

  // Platform.
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    inMemory: opts.inMemoryDatabase ?? false,
    preparedStatements: config.databasePreparedStatements,
    warn: (msg, fields) => log.warn(msg, fields),
    observeStatement: (kind, seconds) => metrics.databaseStatement(kind, seconds),
  });
  let counters: CounterStore;
  let pepper: string;
  try {
    const migrated = await db.migrate();
    if (migrated.applied.length) log.info('database migrated', { applied: migrated.applied, backend: db.kind });
    pepper = await establishPepper(db.prisma, config.apiKeyPepper, config.dataDir);
    await autovacuum(db, log);
    counters = timedCounterStore(await openCounterStore(config, log), (operation, seconds, failed) =>
      metrics.counterStoreCall(operation, seconds, failed),
    );
  } catch (e) {
    await db.close(); // release the data directory (PGlite) before reporting the failure
    throw e;
  }

  // Domain.
  const publications = new PublicationCache(db.prisma, {
    onError: (e) => log.warn('publication refresh failed', { err: e }),
  });
  // The database builds the publication while the network index loads.
  const [network] = await Promise.all([networkLoad, publications.load()]);
  log.info('network data loaded', { ...network.stats() });
  const mailer = new Mailer(db.prisma, config.smtpUrl ? smtpTransport(config.smtpUrl) : null, config.mailFrom, log);
  // Throws on an unreadable PAYPAL_CERT_CA_FILE.
  const provider = config.paypal ? new PayPalProvider(config.paypal) : null;
  const cancellations = provider ? new ProviderCancellations(db.prisma, provider, log) : null;
  const services = await createServices({
    prisma: db.prisma,
    network,
    publications,
    counters,
    baseUrl: config.baseUrl,
    log,
    metrics,
    bulkChunkSize: db.kind === 'pglite' ? BULK_CHUNK_SIZE.embedded : BULK_CHUNK_SIZE.postgres,
    spikeMinRequesters: config.spikeMinRequesters,
    webhookAllowedHosts: config.webhookAllowedHosts,
    mail: (m) => mailer.enqueue(m),
  });
  registerStateGauges(metrics, { prisma: db.prisma, publications, log });
  const modelGauges = registerModelGauges(metrics);
  const verifier = new KeyVerifier(db.prisma, pepper, config.keyCacheTtlMs);
  // Revoked keys and tier changes reach the other processes over Redis pub/sub, once start() subscribed.
  let bus: InvalidationBus | null = null;
  const announce = redisTargetOf(config) ? async (m: string) => bus?.publish(m) : undefined;

  // Transports.
  const proxies = config.trustedProxies.length ? trustedProxies(config.trustedProxies) : null;
  const deps: ApiDeps = { services, verifier, config, log, proxies };
  const workspace = createWorkspaceServer({ ...deps, pepper, announce, mailer, provider, cancellations });
  const http = createHttpServer(
    [
      ['/risk_api/*', createRestRouter(deps)],
      ['/graphql', createGraphQLHandler(deps)],
      ['/graphiql/*', serveGraphiqlAsset],
      ['/mcp', createMcpHandler(deps)],
      ['/workspace/*', workspace.controlPlane],
      ['/webhooks/paypal', workspace.webhook],
      ...healthRoutes({ database: () => db.ping(), counters: () => counters.ping() }, () => http.ready()),
      ['/metrics', metricsRoute(metrics, config.metricsToken)],
    ],
    {
      log,
      metrics,
      proxies,
      requestTimeoutMs: config.requestTimeoutMs,
      shutdownGraceMs: config.shutdownGraceMs,
      notFound: (path) =>
        `Nothing at ${path}. The API lives under /risk_api/ and /graphql; the agent-protocol (MCP) server at /mcp.`,
    },
  );
  const background = new BackgroundWork({
    config,
    db,
    log,
    network,
    publications,
    services,
    verifier,
    pepper,
    mailer,
    cancellations,
    modelGauges,
    ...(announce ? { announce } : {}),
    embeddedOwner: db.kind === 'pglite' && !opts.inMemoryDatabase,
    onBus: (b) => {
      bus = b;
    },
  });

  return {
    server: http.server,
    db,
    counters,
    services,
    verifier,
    pepper,
    log,
    metrics,
    async start(port = config.port, host = config.host) {
      await background.start();
      return http.listen(port, host);
    },
    withdraw: () => http.withdraw(),
    async close() {
      await background.stopBeforeDrain(); // a download in progress is cancelled and recorded before the database closes
      await http.drain();
      await background.stopAfterDrain(); // a webhook send in progress finishes (at most 10 s) and is recorded
      await verifier.flushLastUsed().catch(() => {});
      await services.community.flush(); // the last tally of lookups, before the counters close
      await bus?.close();
      await counters.close();
      await db.close();
    },
  };
}
