import cluster from 'node:cluster';
import v8 from 'node:v8';
import { loadConfig, ConfigError, networkOptions, type Config } from './config.ts';
import { superviseWorkers, workerCount } from './platform/workers.ts';
import { createLogger } from './platform/log.ts';
import { loadNetworkDataInWorker } from './domain/network/load-in-worker.ts';
import { restrictUmask } from './platform/db/data-dir.ts';

/** The only place that binds a port and handles signals. */
restrictUmask(); // before anything is written: DATA_DIR is for this user only (platform/db/data-dir.ts)
let config;
try {
  config = loadConfig();
} catch (e) {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
}
const log = createLogger(config.logLevel);
// Under load V8 let the old space grow to several times the live heap before a full collection, and RSS
// followed. Capping the growth trades memory for collector time (docs/decisions/0003-heap-growth-percent.md). V8 reads this
// flag at every collection, so setting it here, before the network data and publication load, is early enough.
if (config.heapGrowthPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`);
// WORKERS > 1: this process supervises and the workers (this same program, forked) serve.
const workers = cluster.isPrimary ? workerCount(config, log) : 1;
if (workers > 1) superviseWorkers(workers, log);
else await serve(config);

/** One serving process: the network index, the app, the port, and a graceful stop on SIGTERM / SIGINT. */
async function serve(config: Config) {
  const started = performance.now();
  // Building the network index is the longest step of start-up: its worker starts first, and the rest of the server
  // (loading its packages: yoga, Pothos, Prisma, node-redis, …) loads beside it. scripts/build.mjs splits the
  // bundle at this dynamic import so those packages are not loaded before this line runs.
  const network = loadNetworkDataInWorker(networkOptions(config));
  network.catch(() => {}); // createApp awaits it and reports a failure; never an unhandled rejection meanwhile
  const { createApp } = await import('./app.ts');
  const app = await createApp(config, { log, network }).catch((e) => {
    log.error('start failed', { err: e });
    process.exit(1);
  });
  const url = await app.listen();
  log.info('listening', { url, baseUrl: config.baseUrl, database: app.db.kind, startupMs: Math.round(performance.now() - started) });

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
        endDelay = () => { clearTimeout(timer); resolve(); };
      })
        .then(() => { log.info('draining', { afterMs: Math.round(performance.now() - since) }); return app.close(); })
        .then(() => { log.info('stopped', { signal, ms: Math.round(performance.now() - since) }); process.exit(0); },
          (e) => { log.error('shutdown failed', { err: e }); process.exit(1); });
    });
  }
}
