/**
 * Worker-thread entry (see load-in-worker.ts): builds the network index and posts it to the thread
 * that started this one. Its large typed arrays (the search trees, the range tables, the pointer
 * tables: ~60 MB) are transferred rather than copied; a failure rejects the worker's top-level
 * await, which the starting thread receives as the worker's 'error'.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { buildNetworkParts } from './load.ts';
import type { NetworkDataOptions } from './types.ts';

/** Below this a buffer may sit in Node's shared allocation pool, which must not be transferred; copying it is cheap. */
const TRANSFER_MIN_BYTES = 64 * 1024;

/** The distinct ArrayBuffers of at least TRANSFER_MIN_BYTES under `value`. */
function largeBuffers(value: unknown, found = new Set<ArrayBuffer>(), seen = new Set<object>()): Set<ArrayBuffer> {
  if (typeof value !== 'object' || value === null || seen.has(value)) return found;
  seen.add(value);
  if (ArrayBuffer.isView(value)) {
    if (value.buffer instanceof ArrayBuffer && value.buffer.byteLength >= TRANSFER_MIN_BYTES) found.add(value.buffer);
    return found;
  }
  if (value instanceof Map) return found; // the index's maps hold numbers and strings only
  for (const child of Object.values(value)) largeBuffers(child, found, seen);
  return found;
}

if (!parentPort) throw new Error('load-worker.ts runs as a worker thread (load-in-worker.ts)');
const parts = await buildNetworkParts(workerData as NetworkDataOptions);
parentPort.postMessage(parts, [...largeBuffers(parts)]);
