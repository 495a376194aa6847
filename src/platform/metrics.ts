import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Aggregator } from 'prom-client';
import { inClusterWorker, metricsOfAllWorkers, shareWithPrimary } from './metrics-cluster.ts';
import { buildInfo } from './build-info.ts';

/**
 * The process's Prometheus metrics (prom-client), one registry per app, scraped at GET /metrics
 * (transport/http/metrics-route.ts; names and labels in docs/operations.md#metrics). Every label takes its values
 * from a closed set (route patterns, tiers, method names, status codes, feed names an operator chose), never
 * from a raw path or any other text a client sends, so the number of series stays bounded.
 */
export type ApiSurface = 'rest' | 'graphql' | 'mcp';
export type ScoreRefusal = 'quota' | 'burst';

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class Metrics {
  readonly registry = new Registry();
  private readonly http = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by route pattern, method and status, from arrival to the last byte sent.',
    labelNames: ['route', 'method', 'status'],
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly scores = new Counter({
    name: 'risk_score_calls_total',
    help: 'Metered score calls counted against a quota, by tier and surface (rest, graphql, mcp).',
    labelNames: ['tier', 'surface'],
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: 'risk_score_refusals_total',
    help: 'Score calls refused by the daily quota (reason="quota") or the per-key burst limit (reason="burst").',
    labelNames: ['tier', 'surface', 'reason'],
    registers: [this.registry],
  });
  private readonly batches = new Histogram({
    name: 'risk_group_commit_batch_size',
    help: 'Writes per group-commit statement, by writer (rating, report).',
    labelNames: ['writer'],
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [this.registry],
  });
  private readonly counterOps = new Histogram({
    name: 'risk_counters_duration_seconds',
    help: 'Counter store (Redis or embedded) calls by operation, including failures.',
    labelNames: ['operation'],
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly counterFailures = new Counter({
    name: 'risk_counters_failures_total',
    help: 'Counter store (Redis or embedded) calls that failed, by operation: metered calls fail closed meanwhile.',
    labelNames: ['operation'],
    registers: [this.registry],
  });
  private readonly statements = new Histogram({
    name: 'risk_database_statement_duration_seconds',
    help: 'Database statements by kind (query, execute), as the driver adapter ran them, including failures.',
    labelNames: ['kind'],
    buckets: SECONDS,
    registers: [this.registry],
  });

  constructor() {
    // Process CPU, memory, heap, handles, GC and event-loop delay (nodejs_eventloop_lag_*), prom-client's defaults.
    collectDefaultMetrics({ register: this.registry });
    // prom-client also exports these three as gauges named *_total, which Prometheus reserves for counters (promtool
    // check metrics flags them). Each repeats the sum of its per-type gauge: sum(nodejs_active_handles) is the same.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
      this.registry.removeSingleMetric(name);
    new Gauge({
      name: 'risk_api_build_info',
      help: 'Always 1: the version (package.json) and git commit running, in its labels (join other series on it).',
      labelNames: ['version', 'commit'],
      aggregator: 'first', // every worker runs the same build: one series, not WORKERS of them summed
      registers: [this.registry],
    }).set(buildInfo(), 1);
    if (inClusterWorker()) shareWithPrimary(this.registry);
  }

  httpRequest(route: string, method: string | undefined, status: number | 'aborted', seconds: number): void {
    this.http.observe(
      { route, method: method && HTTP_METHODS.has(method) ? method : 'other', status: String(status) },
      seconds,
    );
  }
  scoreCounted(tier: string, surface: ApiSurface): void {
    this.scores.inc({ tier, surface });
  }
  scoreRefused(tier: string, surface: ApiSurface, reason: ScoreRefusal): void {
    this.refusals.inc({ tier, surface, reason });
  }
  groupCommit(writer: 'rating' | 'report', size: number): void {
    this.batches.observe({ writer }, size);
  }
  counterStoreCall(operation: string, seconds: number, failed = false): void {
    this.counterOps.observe({ operation }, seconds);
    if (failed) this.counterFailures.inc({ operation });
  }
  databaseStatement(kind: 'query' | 'execute', seconds: number): void {
    this.statements.observe({ kind }, seconds);
  }

  /**
   * A gauge whose samples are read at scrape time: `read` answers the current values (one per label set). When it
   * fails, the gauge answers no samples for that scrape rather than stale ones; a gauge without labels always has
   * one sample (the format's rule for prom-client), NaN when there is no value. `aggregator`: how the values of
   * several workers (WORKERS > 1) combine into one (metrics-cluster.ts).
   */
  stateGauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    aggregator: Aggregator,
    read: () => Promise<Array<[Partial<Record<L, string>>, number]>> | Array<[Partial<Record<L, string>>, number]>,
  ): void {
    new Gauge<L>({
      name,
      help,
      labelNames,
      aggregator,
      registers: [this.registry],
      async collect() {
        this.reset();
        const values = await Promise.resolve()
          .then(read)
          .catch(() => []);
        for (const [labels, value] of values) this.set(labels, value);
        if (values.length === 0 && labelNames.length === 0) this.set(Number.NaN);
      },
    });
  }

  /** The text exposition format (version 0.0.4) and its content type: of every worker together, in a cluster. */
  async exposition(): Promise<{ type: string; text: string }> {
    return {
      type: this.registry.contentType,
      text: inClusterWorker() ? await metricsOfAllWorkers() : await this.registry.metrics(),
    };
  }
}
