/**
 * Building the network index in a worker thread, so that the server's start-up runs it beside
 * everything else: ~2.3 s of CPU that, on the main thread, came before or between opening the
 * database, migrating, and loading the latest publication (which are CPU work there too, for the
 * embedded database and for parsing the publication). The built index arrives as the bytes of its image
 * (image.ts) and is revived class by class (revive.ts). When an image directory is given and holds the
 * image of these data files, no worker is started: the image is read here. The server uses this (main.ts
 * starts it first; createApp when given no index); the CLI and tests use loadNetworkData.
 */
import { Worker } from 'node:worker_threads';
import { deserializeNetworkImage, readNetworkImage } from './image.ts';
import { networkImageFile, networkIndexFromImage, networkIndexOf, reviveNetworkParts } from './load.ts';
import type { NetworkWorkerAnswer, NetworkWorkerData } from './load-worker.ts';
import type { NetworkDataOptions, NetworkIndex } from './types.ts';

/** The server bundle (scripts/build.mjs) writes the worker's own bundle beside it. From the sources (tsx,
 *  vitest) the worker registers tsx first, as bin/risk-api.mjs does: Node 20 ignores `--import` in a worker's execArgv. */
function startWorker(data: NetworkWorkerData): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./network-worker.mjs', import.meta.url), { workerData: data });
  const entry = JSON.stringify(new URL('./load-worker.ts', import.meta.url).href);
  return new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${entry}); });`, {
    eval: true,
    workerData: data,
  });
}

/** The index read from its image in `imageDir`, or built by a worker thread (which then writes the image there).
 *  Rejects with the worker's own error (a missing file, say). */
export async function loadNetworkDataInWorker(
  opts: NetworkDataOptions = {},
  imageDir: string | null = null,
): Promise<NetworkIndex> {
  const started = performance.now();
  const imageFile = await networkImageFile(opts, imageDir);
  const stored = imageFile ? await readNetworkImage(imageFile) : null;
  if (stored) return networkIndexFromImage(stored, started);
  return new Promise((resolve, reject) => {
    const worker = startWorker({ opts, imageFile });
    worker.once('message', (answer: NetworkWorkerAnswer) => {
      try {
        const parts = reviveNetworkParts(deserializeNetworkImage(answer.image));
        // loadMs as this thread saw it: the build plus starting the worker and reviving its answer
        const loadMs = Math.round(performance.now() - started);
        resolve(networkIndexOf({ ...parts, info: { ...parts.info, loadMs, image: answer.stored } }));
      } catch (e) {
        reject(e);
      }
    });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new Error(`the network data worker stopped (exit code ${code}) before sending the index`)),
    );
  });
}
