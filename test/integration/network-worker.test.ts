// The server builds its network index in a worker thread (load-in-worker.ts); the index crosses to
// the main thread as a structured clone and is revived class by class. It must answer exactly as
// one built in this thread, on every path a lookup can take; so must one read from its image on disk
// (image.ts: the same clone, kept in a file; test/global-setup.ts wrote the packaged data's).
import { beforeAll, describe, expect, it } from 'vitest';
import { loadNetworkData, type NetworkIndex } from '../../src/domain/network/index.ts';
import { loadNetworkDataInWorker } from '../../src/domain/network/load-in-worker.ts';
import { TEST_NETWORK_IMAGE_DIR } from '../helpers/network.ts';

let local: NetworkIndex;
let fromWorker: NetworkIndex;
let fromImage: NetworkIndex;
beforeAll(async () => {
  [local, fromWorker, fromImage] = await Promise.all([
    loadNetworkData(),
    loadNetworkDataInWorker(),
    loadNetworkData({}, TEST_NETWORK_IMAGE_DIR),
  ]);
});

/** Deterministic addresses spread over the whole space of each family. */
function sampleIps(count: number): string[] {
  let state = 20261124;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
  const ips: string[] = [];
  for (let i = 0; i < count; i++) {
    ips.push([24, 16, 8, 0].map((s) => (next() >>> s) & 255).join('.'));
    ips.push(
      `2${(next() % 0x1000).toString(16).padStart(3, '0')}:${Array.from({ length: 7 }, () => (next() & 0xffff).toString(16)).join(':')}`,
    );
  }
  return ips;
}

describe('the network index built in a worker thread', () => {
  it('has the same ranges and organisations', () => {
    expect({ ...fromWorker.stats(), loadMs: 0 }).toEqual({ ...local.stats(), loadMs: 0 });
    expect(fromImage.stats()).toMatchObject({ ...local.stats(), loadMs: expect.any(Number), image: 'read' });
  });

  it('resolves known, fallback, special and sampled addresses exactly as one built in this thread', () => {
    const known = [
      '1.1.1.1',
      '8.8.8.8',
      '73.15.2.3',
      '86.1.2.3',
      '9.100.1.2',
      '10.1.2.3',
      '2606:4700:4700::1111',
      '2001:4860:4860::8888',
      '::1',
    ];
    const ips = [...known, ...sampleIps(2_000)];
    const differing = ips.filter((ip) => JSON.stringify(fromWorker.resolve(ip)) !== JSON.stringify(local.resolve(ip)));
    expect(
      differing.slice(0, 5).map((ip) => ({ ip, worker: fromWorker.resolve(ip), local: local.resolve(ip) })),
    ).toEqual([]);
    const fromDisk = ips.filter((ip) => JSON.stringify(fromImage.resolve(ip)) !== JSON.stringify(local.resolve(ip)));
    expect(fromDisk.slice(0, 5).map((ip) => ({ ip, image: fromImage.resolve(ip), local: local.resolve(ip) }))).toEqual(
      [],
    );
    // the sample reaches every kind of answer, so the comparison covers them all
    const subnetSources = new Set(ips.map((ip) => local.resolve(ip).subnetSource));
    expect([...subnetSources].sort()).toEqual(['announced', 'fallback', 'none']);
    expect(ips.some((ip) => local.resolve(ip).dimensions.find((d) => d.code === 'city')?.entity)).toBe(true);
  });

  it('rejects with the file error when a data file is missing, and the thread that asked goes on', async () => {
    await expect(loadNetworkDataInWorker({ asnCsvV4: '/nonexistent/asn-ipv4.csv' })).rejects.toThrow(
      /ENOENT.*\/nonexistent\/asn-ipv4\.csv/,
    );
    expect(local.resolve('1.1.1.1').ip).toBe('1.1.1.1');
  });
});
