import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/**
 * /metrics with WORKERS > 1 (platform/workers.ts): the primary shares connections out among the workers, so a
 * scrape reaches any one of them, and one worker's own counters would jump from scrape to scrape. The worker that
 * takes a scrape asks the primary instead, which gathers every worker's registry (prom-client's
 * AggregatorRegistry, over the cluster's IPC channel) and answers the aggregate: counters and histograms summed,
 * each gauge by the aggregator it declares.
 */
const ASK = 'risk-api:metrics';
const ANSWER = 'risk-api:metrics-answer';
/** Longer than prom-client's own 5 s wait for the workers, so its failure arrives here first. */
const ANSWER_WAIT_MS = 8_000;

type Answer = { type: typeof ANSWER; id: number; text?: string; error?: string };

/** True in a worker of a cluster: its metrics are answered through the primary. */
export function inClusterWorker(): boolean {
  return cluster.isWorker && typeof process.send === 'function';
}

/** In the primary: answers the workers' requests for the aggregate of every worker's registry. */
export function aggregateWorkerMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: string; id?: number }) => {
    if (message?.type !== ASK) return;
    const reply = (answer: Omit<Answer, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...answer });
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (e: Error) => reply({ error: e.message }),
    );
  });
}

let shared = false;
let nextId = 0;
const waiting = new Map<number, (answer: Answer) => void>();

/** In a worker: hands its registry to the primary's aggregation (once per process). */
export function shareWithPrimary(registry: Registry): void {
  if (shared) return;
  shared = true;
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry(); // in a worker, this installs prom-client's answer to the primary's requests
  process.on('message', (message: Answer) => {
    if (message?.type !== ANSWER) return;
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
}

/** In a worker: the aggregate of every worker's metrics, from the primary. */
export function metricsOfAllWorkers(): Promise<string> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error('the primary did not answer'));
    }, ANSWER_WAIT_MS);
    waiting.set(id, (answer) => {
      clearTimeout(timer);
      if (answer.text !== undefined) resolve(answer.text);
      else reject(new Error(answer.error ?? 'no answer'));
    });
    process.send!({ type: ASK, id });
  });
}
