/**
 * Building the network index in a worker thread, so that the server's start-up runs it beside
 * everything else: ~2.3 s of CPU that, on the main thread, came before or between opening the
 * database, migrating, and loading the latest publication (which are CPU work there too, for the
 * embedded database and for parsing the publication). The built index arrives as a structured clone
 * and is revived class by class (revive.ts). The server uses it (main.ts starts it first; createApp
 * when given no index); the CLI and tests that share one index per file use loadNetworkData.
 */
import { Worker } from 'node:worker_threads';
import { networkIndexOf, reviveNetworkParts, type NetworkParts } from './load.ts';
import type { NetworkDataOptions, NetworkIndex } from './types.ts';

/** The server bundle (scripts/build.mjs) writes the worker's own bundle beside it. From the sources (tsx,
 *  vitest) the worker registers tsx first, as bin/risk-api.mjs does: Node 20 ignores `--import` in a worker's execArgv. */
function startWorker(opts: NetworkDataOptions): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./network-worker.mjs', import.meta.url), { workerData: opts });
  const entry = JSON.stringify(new URL('./load-worker.ts', import.meta.url).href);
  return new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${entry}); });`, { eval: true, workerData: opts });
}

/** The index built by a worker thread. Rejects with the worker's own error (a missing file, say). */
export function loadNetworkDataInWorker(opts: NetworkDataOptions = {}): Promise<NetworkIndex> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const worker = startWorker(opts);
    worker.once('message', (clone: NetworkParts) => {
      try {
        const parts = reviveNetworkParts(clone);
        // loadMs as this thread saw it: the build plus starting the worker and reviving its answer
        resolve(networkIndexOf({ ...parts, info: { ...parts.info, loadMs: Math.round(performance.now() - started) } }));
      } catch (e) {
        reject(e);
      }
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the network data worker stopped (exit code ${code}) before sending the index`)));
  });
}
