// The network index's image on disk (decision 0032): a start reads it instead of building the index, but only the
// image of exactly these data files and this code; anything else is built again and written for the next start.
import { mkdtemp, readdir, rm, stat, truncate, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { deserializeNetworkImage, readNetworkImage } from '../../src/domain/network/image.ts';
import { defaultDataFiles, loadNetworkData, type NetworkIndex } from '../../src/domain/network/index.ts';
import { loadNetworkDataInWorker } from '../../src/domain/network/load-in-worker.ts';

let dir: string;
const V4_ROWS = ['1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."', '8.8.8.0,8.8.8.255,15169,Google LLC'];
const V6_ROWS = ['2001:db9::,2001:db9:ffff:ffff:ffff:ffff:ffff:ffff,64510,Six Net'];
const IPS = ['1.0.0.1', '8.8.8.8', '9.9.9.9', '10.0.0.1', '81.2.69.160', '2001:db9::1', '2a02:ec0::1', '::1'];

/** Small ASN files of this test's own, and the packaged IPv6 city file for both families (a real mmdb). */
const files = () => ({
  asnCsvV4: join(dir, 'v4.csv'),
  asnCsvV6: join(dir, 'v6.csv'),
  maxmindCityMmdb: defaultDataFiles().cityMmdbV6,
});
const images = async (imageDir: string) => (await readdir(imageDir)).filter((n) => n.endsWith('.v8'));
const answers = (index: NetworkIndex) => IPS.map((ip) => index.resolve(ip));
const sameShape = (index: NetworkIndex) => ({ ...index.stats(), loadMs: 0, image: '' });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'network-image-'));
  await writeFile(join(dir, 'v4.csv'), V4_ROWS.join('\n'));
  await writeFile(join(dir, 'v6.csv'), V6_ROWS.join('\n'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the network index image', () => {
  it('is written after a build; the next load reads it and answers exactly as the build did', async () => {
    const imageDir = join(dir, 'plain');
    const built = await loadNetworkData(files(), imageDir);
    expect(built.stats().image).toBe('written');
    expect(await images(imageDir)).toEqual([expect.stringMatching(/^network-[0-9a-f]{24}\.v8$/)]);
    const read = await loadNetworkData(files(), imageDir);
    expect(read.stats().image).toBe('read');
    expect(sameShape(read)).toEqual(sameShape(built));
    expect(answers(read)).toEqual(answers(built));
    expect(read.resolve('8.8.8.8').dimensions.find((d) => d.code === 'asn')?.entity?.key).toBe('AS15169');
  });

  it('is written by the worker thread, and then read without starting one', async () => {
    const imageDir = join(dir, 'worker');
    const built = await loadNetworkDataInWorker(files(), imageDir);
    expect(built.stats().image).toBe('written');
    const read = await loadNetworkDataInWorker(files(), imageDir);
    expect(read.stats().image).toBe('read');
    expect(answers(read)).toEqual(answers(built));
    // an image the worker wrote is the same as one this thread writes: either reads the other's
    expect((await loadNetworkData(files(), imageDir)).stats().image).toBe('read');
  });

  it('is another image when a data file changes: the old one is never read, and only the two newest are kept', async () => {
    const imageDir = join(dir, 'changes');
    const v4 = join(dir, 'v4-changing.csv');
    const load = () => loadNetworkData({ ...files(), asnCsvV4: v4 }, imageDir);
    const counts: number[] = [];
    for (let rows = 1; rows <= 3; rows++) {
      await writeFile(
        v4,
        V4_ROWS.slice(0, 1)
          .concat(rows > 1 ? V4_ROWS[1]! : [], rows > 2 ? ['9.9.9.0,9.9.9.255,19281,Quad9'] : [])
          .join('\n'),
      );
      const index = await load();
      expect(index.stats().image).toBe('written');
      counts.push(index.stats().v4Ranges);
    }
    expect(counts).toEqual([1, 2, 3]);
    expect(await images(imageDir)).toHaveLength(2);
    const again = await load();
    expect(again.stats()).toMatchObject({ image: 'read', v4Ranges: 3 });
    expect(again.resolve('9.9.9.9').dimensions.find((d) => d.code === 'asn')?.entity?.key).toBe('AS19281');
  });

  it('is built and written again when the file is damaged', async () => {
    const imageDir = join(dir, 'damaged');
    const built = await loadNetworkData(files(), imageDir);
    const [name] = await images(imageDir);
    await truncate(join(imageDir, name!), 1000);
    expect(await readNetworkImage(join(imageDir, name!))).toBeNull();
    const rebuilt = await loadNetworkData(files(), imageDir);
    expect(rebuilt.stats().image).toBe('written');
    expect(answers(rebuilt)).toEqual(answers(built));
    expect((await stat(join(imageDir, name!))).size).toBeGreaterThan(1000);
    expect((await loadNetworkData(files(), imageDir)).stats().image).toBe('read');
  });

  it('refuses bytes that are not an image', () => {
    expect(() => deserializeNetworkImage(v8.serialize({ magic: 'something else', parts: {} }))).toThrow(
      /not a network index image/,
    );
    expect(() => deserializeNetworkImage(v8.serialize(null))).toThrow(/not a network index image/);
    expect(() => deserializeNetworkImage(Buffer.from('not serialized at all'))).toThrow();
  });

  it('removes a temporary file a killed writer left, once it is old', async () => {
    const imageDir = join(dir, 'left-over');
    await loadNetworkData(files(), imageDir);
    const [name] = await images(imageDir);
    const old = join(imageDir, `${name}.999-dead.tmp`);
    const recent = join(imageDir, `${name}.998-live.tmp`);
    await writeFile(old, 'half an image');
    await writeFile(recent, 'a writer still at work');
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(old, hourAgo, hourAgo);
    await rm(join(imageDir, name!)); // the next load builds and writes, which tidies the directory
    await loadNetworkData(files(), imageDir);
    expect((await readdir(imageDir)).sort()).toEqual([name, `${name}.998-live.tmp`]);
  });

  it('cannot be written: the index still loads, and its stats say why', async () => {
    const notADirectory = join(dir, 'a-file');
    await writeFile(notADirectory, '');
    const here = await loadNetworkData(files(), join(notADirectory, 'images'));
    expect(here.stats().image).toMatch(/^not written: .*ENOTDIR/);
    const worker = await loadNetworkDataInWorker(files(), join(notADirectory, 'images'));
    expect(worker.stats().image).toMatch(/^not written: .*ENOTDIR/);
    expect(answers(worker)).toEqual(answers(here));
  });

  it('is not kept without an image directory, and a missing data file still rejects with its own error', async () => {
    expect((await loadNetworkData(files())).stats().image).toBe('off');
    await expect(loadNetworkData({ ...files(), asnCsvV4: join(dir, 'missing.csv') }, join(dir, 'x'))).rejects.toThrow(
      /ENOENT.*missing\.csv/,
    );
  });
});

describe('NETWORK_IMAGE_DIR', () => {
  it('defaults to network-image under DATA_DIR, takes a path, and off keeps none', () => {
    expect(loadConfig({ DATA_DIR: '/srv/risk' }).networkImageDir).toBe('/srv/risk/network-image');
    expect(loadConfig({ NETWORK_IMAGE_DIR: '/var/cache/risk' }).networkImageDir).toBe('/var/cache/risk');
    expect(loadConfig({ NETWORK_IMAGE_DIR: 'off' }).networkImageDir).toBeNull();
  });
});
