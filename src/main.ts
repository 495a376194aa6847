import cluster from 'node:cluster';
import v8 from 'node:v8';
import { loadConfig, ConfigError, networkOptions, type Config } from './config.ts';
import { superviseWorkers, workerCount } from './platform/workers.ts';
import { createLogger, type Logger } from './platform/log.ts';
import { loadNetworkDataInWorker } from './domain/network/load-in-worker.ts';
import { restrictUmask } from './platform/db/data-dir.ts';
import { preflight } from './platform/start/preflight.ts';
import { databaseFailure, listenFailure, redisFailure, StartError } from './platform/start/start-error.ts';
import { CounterUnavailableError } from './platform/counters/types.ts';

/**
 * Runs the service: the only place that binds a port and handles signals. `npm start` runs it through start.ts, the
 * CLI's `start` command calls it; importing this module does nothing.
 */
export async function serve(): Promise<void> {
  restrictUmask(); // before anything is written: DATA_DIR is for this user only (platform/db/data-dir.ts)
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) cannotStart(e.message);
    throw e;
  }
  // A port in use or a database that is down is found now, in milliseconds, not after the seconds the start-up takes.
  if (cluster.isPrimary) {
    const problem = await preflight(config);
    if (problem) cannotStart(problem.message);
  }
  const log = createLogger(config.logLevel);
  // Capping the old space's growth trades memory for collector time (docs/decisions/0003-heap-growth-percent.md). V8
  // reads this flag at every collection, so setting it here, before the network data and publication load, is early
  // enough.
  if (config.heapGrowthPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`);
  // WORKERS > 1: this process supervises and the workers (this same program, forked) serve.
  const workers = cluster.isPrimary ? workerCount(config, log) : 1;
  if (workers > 1) superviseWorkers(workers, log);
  else await serveOne(config, log);
}

/** One serving process: the network index, the app, the port, and a graceful stop on SIGTERM / SIGINT. */
async function serveOne(config: Config, log: Logger) {
  const started = performance.now();
  // Building the network index is the longest step of start-up: its worker starts first, and the rest of the server
  // (loading its packages: yoga, Pothos, Prisma, node-redis, …) loads beside it. scripts/build.mjs splits the
  // bundle at this dynamic import so those packages are not loaded before this line runs.
  const network = loadNetworkDataInWorker(networkOptions(config), config.networkImageDir);
  network.catch(() => {}); // createApp awaits it and reports a failure; never an unhandled rejection meanwhile
  const { createApp } = await import('./app.ts');
  const app = await createApp(config, { log, network }).catch((e) => failedStart(log, e, storeFailure(e, config)));
  const url = await app.start().catch((e) => failedStart(log, e, listenFailure(e, config.port, config.host)));
  log.info('listening', {
    url,
    baseUrl: config.baseUrl,
    database: app.db.kind,
    startupMs: Math.round(performance.now() - started),
  });

  /**
   * SIGTERM (or SIGINT): first readiness is withdrawn for DRAIN_DELAY_MS while every request is still served, so a
   * load balancer or an orchestrator polling /readyz stops routing here before the listener closes; then the drain
   * (stop accepting, finish in-flight requests up to SHUTDOWN_GRACE_MS, release everything); then one "stopped"
   * line and exit 0. A second signal during the delay ends the delay at once.
   */
  let endDelay: (() => void) | null = null; // set once shutting down
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (endDelay) return endDelay();
      const since = performance.now();
      log.info('shutting down', { signal, drainDelayMs: config.drainDelayMs, shutdownGraceMs: config.shutdownGraceMs });
      app.withdraw();
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, config.drainDelayMs);
        endDelay = () => {
          clearTimeout(timer);
          resolve();
        };
      })
        .then(() => {
          log.info('draining', { afterMs: Math.round(performance.now() - since) });
          return app.close();
        })
        .then(
          () => {
            log.info('stopped', { signal, ms: Math.round(performance.now() - since) });
            process.exit(0);
          },
          (e) => {
            log.error('shutdown failed', { err: e });
            process.exit(1);
          },
        );
    });
  }
}

/** One line per problem on stderr, each naming the setting and its fix, then exit 1 at once: no stack, no wait. */
function cannotStart(message: string): never {
  for (const line of message.split('\n')) process.stderr.write(`risk-api cannot start: ${line}\n`);
  process.exit(1);
}

/** A failure the operator can fix (`known`) becomes its one line; anything else is a bug, logged with its stack. */
function failedStart(log: Logger, e: unknown, known: StartError | null): never {
  if (known) cannotStart(known.message);
  log.error('start failed', { err: e });
  process.exit(1);
}

/** createApp's failures the operator can fix: a setting checked at start (the pepper), PostgreSQL, Redis. */
function storeFailure(e: unknown, config: Config): StartError | null {
  if (e instanceof StartError) return e;
  if (config.databaseUrl) {
    const db = databaseFailure(e, config.databaseUrl);
    if (db) return db;
  }
  return config.redisUrl && e instanceof CounterUnavailableError ? redisFailure(config.redisUrl, e.message) : null;
}
