import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { networkOptions, type Config } from './config.ts';
import { createLogger, type Logger } from './platform/log.ts';
import { openDatabase, type Database } from './platform/db/database.ts';
import { KeyVerifier } from './domain/access/verifier.ts';
import { resolvePepper } from './domain/access/pepper.ts';
import { sweepIdempotency } from './domain/memory/idempotency.ts';
import { createGraphQLServer, serveGraphQL } from './transport/graphql/yoga.ts';
import { graphqlCors } from './transport/graphql/cors.ts';
import { GRAPHIQL_ASSETS, serveGraphiqlAsset } from './transport/graphql/graphiql.ts';
import { createRestRouter } from './transport/rest/router.ts';
import { createMcpHandler } from './transport/mcp/http.ts';
import { sendError, sendJson } from './transport/rest/respond.ts';
import { AppError } from './errors.ts';
import { serveAdmin, type AdminServer } from './cli/admin-socket.ts';
import { runCommand } from './cli/commands.ts';
import { openCounterStore } from './platform/counters/open.ts';
import type { CounterStore } from './platform/counters/types.ts';
import type { NetworkIndex } from './domain/network/index.ts';
import { loadNetworkDataInWorker } from './domain/network/load-in-worker.ts';
import { PublicationCache, startPublishSchedule } from './domain/publishing/index.ts';
import type { Services } from './domain/services.ts';
import { TierCatalog } from './domain/metering/tiers.ts';
import { ScoreMeter } from './domain/metering/meter.ts';
import { CommunitySignals } from './domain/community/signal.ts';
import { IpMemoryCache } from './domain/memory/ip-memory.ts';
import { trustedProxies } from './transport/http/client-ip.ts';
import { subscribeInvalidations } from './platform/counters/invalidation.ts';
import { createWorkspaceServer } from './transport/web/wire.ts';

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
  /** Binds the HTTP port (0 = any free port) and returns the base URL actually served. */
  listen(port?: number, host?: string): Promise<string>;
  /** Graceful: stop accepting, let in-flight requests finish (up to the grace period), release everything. */
  close(): Promise<void>;
};

/** Score calls' lookups are sent to the counters in one batch per 25 ms; a window's snapshot is read 1 s after
 *  it ends, when every process has sent its last batch of it (see domain/community/signal.ts). Measured at
 *  32 connections (PG + Redis): batches of 100 ms held the event loop for thousands of commands at once (score p99
 *  12-14 ms) and outlived the young generation; 25 ms: p99 ~8 ms and ~5% more calls per second; 10 ms: no better. */
const COMMUNITY_FLUSH_MS = 25;
const COMMUNITY_SETTLE_MS = 1_000;

/** Builds the whole service without binding a port; only main.ts (or a test) listens. */
export async function createApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const log = opts.log ?? createLogger(config.logLevel);
  // The network index is built in a worker thread: ~2.3 s of CPU beside opening and migrating the database and
  // loading the latest publication, which is CPU work on this thread.
  const networkLoad = Promise.resolve(opts.network ?? loadNetworkDataInWorker(networkOptions(config)));
  networkLoad.catch(() => {}); // awaited below; never an unhandled rejection meanwhile
  const db = await openDatabase({
    databaseUrl: config.databaseUrl, dataDir: config.dataDir, inMemory: opts.inMemoryDatabase ?? false, preparedStatements: config.databasePreparedStatements,
    warn: (msg, fields) => log.warn(msg, fields),
  });
  let counters: CounterStore;
  try {
    const migrated = await db.migrate();
    if (migrated.applied.length) log.info('database migrated', { applied: migrated.applied, backend: db.kind });
    counters = await openCounterStore(config, log);
  } catch (e) {
    await db.close(); // release the data directory (PGlite) before reporting the failure
    throw e;
  }
  const publications = new PublicationCache(db.prisma, { onError: (e) => log.warn('publication refresh failed', { err: String(e) }) });
  // The database builds the latest publication's rows while the network data is still parsing.
  const [network] = await Promise.all([networkLoad, publications.load()]);
  log.info('network data loaded', { ...network.stats() });
  publications.start(config.publicationRefreshMs);
  const stopPublishing = config.publishIntervalMs > 0
    ? startPublishSchedule({ prisma: db.prisma, network, intervalMs: config.publishIntervalMs, keep: config.publicationsKept, log, onPublished: () => publications.refresh().then(() => {}) })
    : () => {};
  const services: Services = {
    prisma: db.prisma, network, publications, counters, baseUrl: config.baseUrl, log,
    tiers: await TierCatalog.load(db.prisma),
    meter: new ScoreMeter(counters),
    community: new CommunitySignals(counters, {
      flushMs: COMMUNITY_FLUSH_MS, settleMs: COMMUNITY_SETTLE_MS,
      onRecordError: (e) => log.warn('community lookups not recorded', { err: String(e) }),
      onReadError: (e) => log.warn('community signal not read; answered ok: false', { err: String(e) }),
    }),
    ipMemory: new IpMemoryCache(db.prisma, config.keyCacheTtlMs),
  };
  await services.ipMemory.catchUp();
  services.ipMemory.follow(2_000, (e) => log.warn('ip memory catch-up failed', { err: String(e) }));
  const proxies = config.trustedProxies.length ? trustedProxies(config.trustedProxies) : null;
  const pepper = resolvePepper(config.apiKeyPepper, config.dataDir);
  const verifier = new KeyVerifier(db.prisma, pepper, config.keyCacheTtlMs);
  const bus = config.redisUrl
    ? await subscribeInvalidations(config.redisUrl, config.redisKeyPrefix, (m) => verifier.invalidate(m.startsWith('key:') ? m.slice(4) : undefined), log)
    : null;
  const announce = bus ? (m: string) => bus.publish(m) : undefined;
  const yoga = createGraphQLServer({ services, verifier, log, proxies });
  const cors = graphqlCors(config.corsOrigins);
  const rest = createRestRouter({ services, verifier, config, log, proxies });
  const mcp = createMcpHandler({ services, verifier, config, log, proxies });
  const workspace = createWorkspaceServer({ services, config, verifier, pepper, log, proxies, announce });
  let draining = false;

  async function ready(res: ServerResponse) {
    const checks: Record<string, string> = {};
    try { await db.ping(); checks.database = 'ok'; } catch { checks.database = 'unreachable'; }
    try { await counters.ping(); checks.counters = 'ok'; } catch { checks.counters = 'unreachable'; }
    const ok = Object.values(checks).every((v) => v === 'ok') && !draining;
    sendJson(res, ok ? 200 : 503, { ok, checks, draining });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string) {
    const started = performance.now();
    res.setHeader('x-request-id', requestId);
    const path = (req.url ?? '/').split('?', 1)[0]!;
    if (log.enabled('info')) {
      res.on('finish', () => log.info('request', {
        requestId, method: req.method, path, status: res.statusCode, ms: Math.round((performance.now() - started) * 100) / 100,
      }));
    }
    if (draining) {
      sendError(res, new AppError('service_unavailable', 'The server is shutting down; retry on another instance.'), requestId, log, { connection: 'close' });
      return;
    }
    if (path === '/risk_api' || path.startsWith('/risk_api/')) return rest(req, res, path, requestId);
    if (path === '/graphql') return serveGraphQL(yoga, req, res, config.maxBodyBytes, cors);
    if (path.startsWith(GRAPHIQL_ASSETS) && await serveGraphiqlAsset(req, res, path)) return;
    if (path === '/mcp') return mcp(req, res, requestId);
    if (path === '/workspace' || path.startsWith('/workspace/') || path === '/webhooks/paypal') return workspace.handle(req, res, path);
    if (path === '/healthz') return sendJson(res, 200, { ok: true });
    if (path === '/readyz') return ready(res);
    sendError(res, new AppError('not_found', `Nothing at ${path}. The API lives under /risk_api/ and /graphql; the agent-protocol (MCP) server at /mcp.`), requestId, log);
  }

  // A request must have arrived whole within requestTimeoutMs (checked every second): a client that stalls
  // mid-body is answered 408 and disconnected. It also bounds a Node quirk found by fuzzing: a malformed
  // chunked body after `Connection: Upgrade` raises no parse error, so the request would never end.
  const server = createServer({
    keepAliveTimeout: 65_000,
    requestTimeout: config.requestTimeoutMs,
    headersTimeout: Math.min(60_000, config.requestTimeoutMs),
    connectionsCheckingInterval: 1_000,
  }, (req, res) => {
    // The id is made here so that an error escaping a handler (GraphQL's body read) is logged under the id the client sees.
    const requestId = randomUUID();
    handle(req, res, requestId).catch((e) => sendError(res, e, requestId, log));
  });

  const timers = [
    setInterval(() => { verifier.flushLastUsed().catch((e) => log.warn('lastUsed flush failed', { err: String(e) })); }, 10_000),
    setInterval(() => { sweepIdempotency(db.prisma).catch((e) => log.warn('idempotency sweep failed', { err: String(e) })); }, 3600_000),
  ];
  for (const t of timers) t.unref();

  let admin: AdminServer | null = null;
  if (db.kind === 'pglite' && !opts.inMemoryDatabase) {
    // The CLI cannot open the PGlite directory while we hold it, so it asks us instead.
    admin = await serveAdmin(config.dataDir, (command, args) => runCommand(command, args, {
      db, pepper, verifier, publications, network: async () => network, publicationsKept: config.publicationsKept, ...(announce ? { announce } : {}),
    }), log);
  }

  return {
    server, db, counters, services, verifier, pepper, log,
    listen(port = config.port, host = config.host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const address = server.address() as AddressInfo;
          const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${shown}:${address.port}`);
        });
      });
    },
    async close() {
      draining = true;
      for (const t of timers) clearInterval(t);
      publications.stop();
      services.ipMemory.stop();
      stopPublishing();
      if (server.listening) {
        // server.close() stops accepting at once and calls back when the last connection ends.
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Keep-alive connections turn idle as their last response ends: close them as they do.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        server.closeIdleConnections();
        const grace = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
        grace.unref();
        await closed;
        clearInterval(sweep);
        clearTimeout(grace);
      }
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
