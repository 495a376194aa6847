/**
 * The network index kept on disk as an image, so a start reads it back instead of parsing the CSV and mmdb files
 * again (decision 0032). The image is the structured clone the worker thread already sends (load-worker.ts), written
 * with v8.serialize: reading it is one v8.deserialize and the same class-by-class revive (revive.ts).
 *
 * An image is named by a fingerprint of everything it was built from: each data file (path, size, modification
 * time), the code that lays out the index's classes, and V8's serialization version. Another fingerprint is another
 * file, so a changed data file or an upgrade never reads a stale image; it builds and writes a new one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import type { GeoIndex } from './geo-index.ts';
import type { OwnerIndex } from './owner-index.ts';
import type { NetworkStats } from './types.ts';

/** The parts of a built network index, as a worker transfers them and an image holds them. */
export type NetworkParts = { owners: OwnerIndex; geo: GeoIndex; info: NetworkStats };

/** Bumped when the image's wrapper changes; the code fingerprint covers the index's own layout. */
const MAGIC = 'risk-api network index image 1';
/** Images kept in the directory: the one in use and the one before it (a rollback, or sources beside a build). */
const IMAGES_KEPT = 2;
/** A temporary file this old was left by a process that died while writing; a live writer takes well under this. */
const STALE_TEMP_MS = 10 * 60_000;

type ImageFile = { magic: string; parts: NetworkParts };

/** The worker bundle beside this code when it runs built (dist/server); null when it runs from the sources. */
const ownBundle = (): URL | null =>
  import.meta.url.endsWith('.ts') ? null : new URL('./network-worker.mjs', import.meta.url);

/** The code whose classes the image holds. Built (dist/server), the worker bundle holds every class of the index;
 *  from the sources, they are the files of this directory. */
async function codeFingerprint(bundle: URL | null): Promise<string> {
  const hash = createHash('sha256');
  if (bundle) {
    hash.update(await readFile(bundle));
    return hash.digest('hex');
  }
  const dir = path.dirname(fileURLToPath(import.meta.url));
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('.ts')).sort()) {
    hash.update(name).update(await readFile(path.join(dir, name)));
  }
  return hash.digest('hex');
}

/** The image's file name for the data files a build reads (option name to path); rejects when one cannot be
 *  stat'ed (the build then reports it). `bundle`: the name a server built into that worker bundle reads (the
 *  tests write it before they start built servers); by default, this code's own. */
export async function networkImageName(
  files: Record<string, string>,
  bundle: URL | null = ownBundle(),
): Promise<string> {
  const described = await Promise.all(
    Object.entries(files)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(async ([option, file]) => {
        const s = await stat(file);
        return [option, path.resolve(file), s.size, s.mtimeMs];
      }),
  );
  const key = JSON.stringify({ MAGIC, described, code: await codeFingerprint(bundle), v8: process.versions.v8 });
  return `network-${createHash('sha256').update(key).digest('hex').slice(0, 24)}.v8`;
}

/** The image's bytes, from parts built by buildNetworkParts (before their buffers are transferred anywhere). */
export function serializeNetworkImage(parts: NetworkParts): Buffer {
  return v8.serialize({ magic: MAGIC, parts } satisfies ImageFile);
}

/** The clone held by image bytes, to revive (reviveNetworkParts); throws on bytes that are not an image. */
export function deserializeNetworkImage(bytes: Uint8Array): NetworkParts {
  const image = v8.deserialize(bytes) as Partial<ImageFile> | null;
  if (image?.magic !== MAGIC || typeof image.parts !== 'object' || image.parts === null)
    throw new Error('not a network index image');
  return image.parts;
}

/** The stored clone, or null when there is none yet (or it cannot be read: the caller builds and rewrites it). */
export async function readNetworkImage(file: string): Promise<NetworkParts | null> {
  try {
    return deserializeNetworkImage(await readFile(file));
  } catch {
    return null;
  }
}

/** Writes the image whole or not at all (a temporary file renamed into place: readers never see half of one),
 *  then removes older images and temporary files that a killed writer left. */
export async function writeNetworkImage(file: string, bytes: Uint8Array): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true });
  const temp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, bytes);
    await rename(temp, file);
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
  await pruneImages(dir, path.basename(file));
}

async function pruneImages(dir: string, current: string): Promise<void> {
  const now = Date.now();
  const entries = await Promise.all(
    (await readdir(dir))
      .filter((n) => n.startsWith('network-'))
      .map(async (name) => ({ name, mtimeMs: (await stat(path.join(dir, name)).catch(() => null))?.mtimeMs ?? 0 })),
  );
  const images = entries.filter((e) => e.name.endsWith('.v8') && e.name !== current);
  images.sort((a, b) => b.mtimeMs - a.mtimeMs);
  const stale = [
    ...images.slice(IMAGES_KEPT - 1),
    ...entries.filter((e) => e.name.endsWith('.tmp') && now - e.mtimeMs > STALE_TEMP_MS),
  ];
  await Promise.all(stale.map((e) => rm(path.join(dir, e.name), { force: true })));
}
