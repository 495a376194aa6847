import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type NetworkIndex, loadNetworkData } from '../../src/domain/network/index.ts';
import { networkImageFile } from '../../src/domain/network/load.ts';
import type { NetworkWorkerAnswer, NetworkWorkerData } from '../../src/domain/network/load-worker.ts';

/**
 * Where every test process (and every server a test starts) keeps the network index's image (decision 0032): built
 * once, by test/global-setup.ts, then read by each start in a fraction of the build's time. It survives between runs
 * and is rebuilt by itself when the data files or the index's code change (its name is their fingerprint).
 */
export const TEST_CACHE_DIR = path.resolve(import.meta.dirname, '../../node_modules/.cache/risk-api-tests');
export const TEST_NETWORK_IMAGE_DIR = TEST_CACHE_DIR;

/** The worker bundle of the built server (scripts/build.mjs) that tests start as a process. */
const BUILT_WORKER = pathToFileURL(path.resolve(import.meta.dirname, '../../dist/server/network-worker.mjs'));

let shared: Promise<NetworkIndex> | undefined;

/** One index for every in-process server and test of this test file's process: the index never changes once built. */
export function sharedNetwork(): Promise<NetworkIndex> {
  shared ??= loadNetworkData({}, TEST_NETWORK_IMAGE_DIR);
  return shared;
}

/**
 * Both images a run reads, written when missing (test/global-setup.ts): the one of the sources (in-process servers,
 * the CLI) and the one of the built server (servers started as processes), whose name comes from its own bundle.
 * Without the second, the first built servers of a clean run, started at once by parallel test files, would each
 * build the index. Both are built at once: the built one by its own worker bundle, in a thread.
 */
export async function ensureNetworkImages(): Promise<void> {
  const [sources, built] = await Promise.all([
    networkImageFile({}, TEST_NETWORK_IMAGE_DIR, null),
    networkImageFile({}, TEST_NETWORK_IMAGE_DIR, BUILT_WORKER),
  ]);
  if (!sources || !built) throw new Error('the network data files for the tests cannot be read');
  await Promise.all([
    existsSync(sources) ? null : loadNetworkData({}, TEST_NETWORK_IMAGE_DIR).then(expectWritten),
    existsSync(built) ? null : writeBuiltImage(built),
  ]);
}

function expectWritten(network: NetworkIndex): void {
  const { image } = network.stats();
  if (image !== 'read' && image !== 'written') throw new Error(`the network index image for tests: ${image}`);
}

function writeBuiltImage(imageFile: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(BUILT_WORKER, { workerData: { opts: {}, imageFile } satisfies NetworkWorkerData });
    worker.once('message', (answer: NetworkWorkerAnswer) => {
      if (answer.stored === 'written') resolve();
      else reject(new Error(`the built server's network index image: ${answer.stored}`));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the network data worker stopped (exit code ${code})`)));
  });
}
