// Operator-supplied MaxMind ISP/ASN databases. No such file ships in npm, so this test writes a
// small but genuine MaxMind DB (format spec 2.0: 24-bit search tree, data section, metadata)
// that the `maxmind` reader opens like any GeoIP2-ISP file.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadNetworkData, type NetworkIndex } from '../../src/domain/network/index.ts';
import { loadNetworkDataInWorker } from '../../src/domain/network/load-in-worker.ts';

type Value = string | number | Value[] | { [k: string]: Value };

/** MaxMind DB data-section encoding of the few types needed here. */
function encode(value: Value, uint64 = false): Buffer {
  const head = (type: number, size: number): Buffer => {
    // sizes of 29+ spill into one or two following bytes; extended types (> 7) take a type byte
    const [sizeBits, extra] =
      size < 29 ? [size, []] : size < 285 ? [29, [size - 29]] : [30, [(size - 285) >> 8, (size - 285) & 255]];
    return Buffer.from(type <= 7 ? [(type << 5) | sizeBits, ...extra] : [sizeBits, type - 7, ...extra]);
  };
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(2, bytes.length), bytes]);
  }
  if (typeof value === 'number') {
    const bytes: number[] = [];
    for (let v = value; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
    return Buffer.concat([head(uint64 ? 9 : 6, bytes.length), Buffer.from(bytes)]);
  }
  if (Array.isArray(value)) return Buffer.concat([head(11, value.length), ...value.map((v) => encode(v))]);
  const entries = Object.entries(value);
  return Buffer.concat([
    head(7, entries.length),
    ...entries.flatMap(([k, v]) => [encode(k), encode(v, k === 'build_epoch')]),
  ]);
}

/** An IPv4 database mapping each given network to its record. */
function buildMmdb(networks: Array<{ net: number; prefix: number; record: Value }>, databaseType: string): Buffer {
  const records = networks.map((n) => encode(n.record));
  const offsets = records.map((_, i) => records.slice(0, i).reduce((a, r) => a + r.length, 0));
  // nodes: Array<[left, right]> where a value is a node index, 'empty', or a data index
  type Slot = { node: number } | { data: number } | null;
  const nodes: Array<[Slot, Slot]> = [[null, null]];
  networks.forEach((n, i) => {
    let node = 0;
    for (let depth = 0; depth < n.prefix; depth++) {
      const bit = (n.net >>> (31 - depth)) & 1;
      if (depth === n.prefix - 1) {
        nodes[node]![bit] = { data: i };
        break;
      }
      const next = nodes[node]![bit];
      if (next && 'node' in next) {
        node = next.node;
        continue;
      }
      nodes.push([null, null]);
      nodes[node]![bit] = { node: nodes.length - 1 };
      node = nodes.length - 1;
    }
  });
  const nodeCount = nodes.length;
  const value = (slot: Slot): number =>
    slot === null ? nodeCount : 'node' in slot ? slot.node : nodeCount + 16 + offsets[slot.data]!;
  const tree = Buffer.alloc(nodeCount * 6);
  nodes.forEach(([l, r], i) => {
    tree.writeUIntBE(value(l), i * 6, 3);
    tree.writeUIntBE(value(r), i * 6 + 3, 3);
  });
  const metadata = encode({
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: 1_700_000_000,
    database_type: databaseType,
    description: { en: 'test database' },
    ip_version: 4,
    languages: ['en'],
    node_count: nodeCount,
    record_size: 24,
  });
  return Buffer.concat([
    tree,
    Buffer.alloc(16),
    ...records,
    Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1'),
    metadata,
  ]);
}

const ip4 = (text: string): number => text.split('.').reduce((a, o) => a * 256 + Number(o), 0);
let dir: string;
let index: NetworkIndex;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'network-mmdb-'));
  await writeFile(
    join(dir, 'isp.mmdb'),
    buildMmdb(
      [
        {
          net: ip4('73.15.0.0'),
          prefix: 16,
          record: {
            autonomous_system_number: 7922,
            autonomous_system_organization: 'Comcast Cable Communications, LLC',
            isp: 'Comcast Cable',
            organization: 'Comcast Residential',
          },
        },
      ],
      'GeoIP2-ISP',
    ),
  );
  await writeFile(
    join(dir, 'asn.mmdb'),
    buildMmdb(
      [
        {
          net: ip4('8.8.8.0'),
          prefix: 24,
          record: { autonomous_system_number: 64999, autonomous_system_organization: 'Example Anycast B.V.' },
        },
      ],
      'GeoLite2-ASN',
    ),
  );
  index = await loadNetworkData({ maxmindIspMmdb: join(dir, 'isp.mmdb'), maxmindAsnMmdb: join(dir, 'asn.mmdb') });
}, 300_000); // builds the index from the data files: minutes on a machine busy with other suites
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function dims(ip: string) {
  return Object.fromEntries(
    index
      .resolve(ip)
      .dimensions.map((d) => [d.code, d.entity && { key: d.entity.key, name: d.entity.name, size: d.entity.size }]),
  );
}

describe('operator MaxMind ISP and ASN databases', () => {
  it('takes isp, org and asn from the ISP database fields, and the subnet from its network', () => {
    expect(dims('73.15.2.3')).toMatchObject({
      subnet: { key: '73.15.0.0/16', size: 65536 },
      isp: { key: 'comcast cable', name: 'Comcast Cable', size: 65536 },
      org: { key: 'comcast residential', name: 'Comcast Residential' },
      asn: { key: 'AS7922' },
      city: { key: 'US-california-san_jose' }, // places still come from the city data
    });
  });

  it('uses the ASN database (org = AS organisation, isp = its brand) where the ISP one is silent', () => {
    expect(dims('8.8.8.8')).toMatchObject({
      subnet: { key: '8.8.8.0/24', size: 256 },
      asn: { key: 'AS64999', size: 256 },
      org: { key: 'example anycast b.v.', name: 'Example Anycast B.V.' },
      isp: { key: 'example anycast' },
    });
  });

  it('falls back to the announced ranges elsewhere', () => {
    expect(dims('1.1.1.1')).toMatchObject({ asn: { key: 'AS13335' }, subnet: { key: '1.1.1.0/24' } });
  });

  it('answers the same when the index is built in a worker thread (as the server builds it)', async () => {
    const fromWorker = await loadNetworkDataInWorker({
      maxmindIspMmdb: join(dir, 'isp.mmdb'),
      maxmindAsnMmdb: join(dir, 'asn.mmdb'),
    });
    for (const ip of ['73.15.2.3', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111'])
      expect(fromWorker.resolve(ip)).toEqual(index.resolve(ip));
  });
});
