/**
 * Worker-thread entry (see load-in-worker.ts): builds the network index and posts it to the thread that started
 * this one as the bytes of its image (image.ts): the same structured clone a postMessage of the index would make,
 * serialized once, so the same bytes can also be written to disk for the next start. The bytes' buffer is
 * transferred, not copied. A failure rejects the worker's top-level await, which the starting thread receives as
 * the worker's 'error'.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { serializeNetworkImage, writeNetworkImage } from './image.ts';
import { buildNetworkParts, imageNotWritten, imageWritten } from './load.ts';
import type { NetworkDataOptions, NetworkStats } from './types.ts';

/** What the starting thread asks for: the data files, and where to write the image (null: not kept). */
export type NetworkWorkerData = { opts: NetworkDataOptions; imageFile: string | null };
/** What the worker answers: the image's bytes, and whether they were written to disk. */
export type NetworkWorkerAnswer = { image: Uint8Array; stored: NetworkStats['image'] };

if (!parentPort) throw new Error('load-worker.ts runs as a worker thread (load-in-worker.ts)');
const { opts, imageFile } = workerData as NetworkWorkerData;
const image = serializeNetworkImage(await buildNetworkParts(opts));
const stored = imageFile ? await writeNetworkImage(imageFile, image).then(imageWritten, imageNotWritten) : 'off';
// a Buffer this large owns its whole ArrayBuffer; should it not, it is copied rather than detaching someone else's
const whole = image.byteOffset === 0 && image.byteLength === image.buffer.byteLength;
parentPort.postMessage({ image, stored } satisfies NetworkWorkerAnswer, whole ? [image.buffer as ArrayBuffer] : []);
