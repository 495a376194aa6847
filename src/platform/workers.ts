import cluster, { type Worker } from 'node:cluster';
import type { Logger } from './log.ts';
import { aggregateWorkerMetrics } from './metrics-cluster.ts';

/**
 * WORKERS > 1: this process only supervises; `count` workers (this same program, forked by node:cluster) serve
 * the port, which the primary shares out connection by connection. Workers share nothing but PostgreSQL and
 * Redis, so quotas stay exact (one atomic counter call per score, as between any processes).
 *
 * - A worker that fails before it ever listened is a start-up failure (bad configuration, database down):
 *   the primary stops the others and exits 1, as one process would.
 * - A worker that dies after it listened is replaced, after a pause that doubles while replacements keep
 *   dying within a minute (up to 30 s), so a crash loop does not spin a core.
 * - SIGTERM / SIGINT go to every worker, which drains as one process does (a second signal, passed on too, ends
 *   their DRAIN_DELAY_MS); the primary exits when all have.
 * - A scrape of /metrics, whichever worker takes it, answers every worker's metrics together (metrics-cluster.ts).
 */
export function superviseWorkers(count: number, log: Logger): void {
  const listened = new WeakSet<Worker>();
  const started = new WeakMap<Worker, number>();
  let stopping = false;
  let pauseMs = 0;

  const fork = () => {
    started.set(cluster.fork(), Date.now());
  };
  const stop = (code: number) => {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(code);
    process.exitCode = code;
  };

  cluster.on('listening', (worker) => {
    listened.add(worker);
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        log.info('stopped', { workers: count });
        process.exit();
      }
      return;
    }
    if (!listened.has(worker)) {
      log.error('a worker failed to start: stopping', { pid: worker.process.pid, code, signal });
      stop(1);
      return;
    }
    const livedMs = Date.now() - (started.get(worker) ?? 0);
    pauseMs = livedMs < 60_000 ? Math.min(30_000, Math.max(250, pauseMs * 2)) : 0;
    log.error('a worker exited: starting another', { pid: worker.process.pid, code, signal, afterMs: pauseMs });
    setTimeout(() => {
      if (!stopping) fork();
    }, pauseMs);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) {
        for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(signal);
        return;
      }
      log.info('shutting down', { signal, workers: Object.keys(cluster.workers ?? {}).length });
      stop(0);
    });
  }
  aggregateWorkerMetrics();
  log.info('starting workers', { workers: count });
  for (let i = 0; i < count; i++) fork();
}

/** The number of processes to run: WORKERS needs the shared backends, else one process (and why, in the log). */
export function workerCount(
  config: {
    workers: number;
    databaseUrl?: string | undefined;
    redisUrl?: string | undefined;
    redisClusterNodes?: string[] | undefined;
  },
  log: Logger,
): number {
  if (config.workers <= 1) return 1;
  if (!config.databaseUrl || !(config.redisUrl || config.redisClusterNodes)) {
    log.warn(
      'WORKERS ignored: several processes need DATABASE_URL and REDIS_URL or REDIS_CLUSTER_NODES (the embedded database and counters belong to one process); running one',
      { workers: config.workers },
    );
    return 1;
  }
  return config.workers;
}
