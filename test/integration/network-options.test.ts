// Loading operator-chosen files: CSV parsing edge cases on a small real file written here, and a
// MaxMind-style city file passed by path (the packaged IPv4 city mmdb stands in for one).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultDataFiles,
  loadNetworkData,
  placeFromRecord,
  type Hierarchy,
  type NetworkIndex,
} from '../../src/domain/network/index.ts';

let dir: string;
let index: NetworkIndex;

const V4_CSV = [
  '16777216,16777471,13335,"Cloudflare, Inc."',
  '16777472,16777727,64500,"LLC ""SPUTNIK"""',
  '1.0.2.0,1.0.3.255,64501,Example Net GmbH',
  '1.0.4.0,1.0.7.255,64502,Wide Ltd', // overlaps the next row: ends where it starts
  '1.0.6.0,1.0.6.255,64503,Narrow Inc.',
  'this line is not a range',
  '',
].join('\r\n');
const V6_CSV = [
  '2001:db9::,2001:db9:ffff:ffff:ffff:ffff:ffff:ffff,64510,Six Net',
  // 2a0b:: – 2a0b::ffff in the decimal form of asn-ipv6-num.csv
  `${0x2a0b0000n << 96n},${(0x2a0b0000n << 96n) + 0xffffn},64511,Decimal Six`,
].join('\n');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'network-options-'));
  await writeFile(join(dir, 'v4.csv'), V4_CSV);
  await writeFile(join(dir, 'v6.csv'), V6_CSV);
  index = await loadNetworkData({
    asnCsvV4: join(dir, 'v4.csv'),
    asnCsvV6: join(dir, 'v6.csv'),
    maxmindCityMmdb: defaultDataFiles().cityMmdbV4,
  });
}, 300_000); // builds the index from the data files: minutes on a machine busy with other suites
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function owner(h: Hierarchy) {
  const get = (code: string) => h.dimensions.find((d) => d.code === code)?.entity;
  return {
    subnet: get('subnet')?.key,
    asn: get('asn')?.key,
    org: get('org')?.name,
    isp: get('isp')?.key,
    asnSize: get('asn')?.size,
  };
}

describe('loadNetworkData with operator files', () => {
  it('counts only well-formed rows', () => {
    expect(index.stats()).toMatchObject({ v4Ranges: 5, v6Ranges: 2, orgs: 7 });
  });

  it('reads quoted organisation names with commas and doubled quotes', () => {
    expect(owner(index.resolve('1.0.0.9'))).toMatchObject({
      asn: 'AS13335',
      org: 'Cloudflare, Inc.',
      isp: 'cloudflare',
    });
    expect(owner(index.resolve('1.0.1.9'))).toMatchObject({ asn: 'AS64500', org: 'LLC "SPUTNIK"', isp: 'sputnik' });
    expect(owner(index.resolve('1.0.3.1'))).toMatchObject({
      subnet: '1.0.2.0/23',
      org: 'Example Net GmbH',
      isp: 'example net',
    });
  });

  it('resolves overlapping rows in favour of the later, more specific one', () => {
    expect(owner(index.resolve('1.0.6.5'))).toMatchObject({ asn: 'AS64503', subnet: '1.0.6.0/24' });
    expect(owner(index.resolve('1.0.5.1'))).toMatchObject({ asn: 'AS64502', subnet: '1.0.4.0/23', asnSize: 512 });
    const after = index.resolve('1.0.7.1');
    expect(after.subnetSource).toBe('fallback');
    expect(owner(after).subnet).toBe('1.0.7.0/24');
  });

  it('reads IPv6 ranges given as text and as 128-bit decimals', () => {
    expect(owner(index.resolve('2001:db9:1::1'))).toMatchObject({
      asn: 'AS64510',
      subnet: '2001:db9::/32',
      asnSize: 2 ** 96,
    });
    expect(owner(index.resolve('2a0b::1'))).toMatchObject({ asn: 'AS64511', subnet: '2a0b::/112' });
    const unannounced = index.resolve('2a0c::1');
    expect(unannounced.subnetSource).toBe('fallback');
    expect(owner(unannounced).subnet).toBe('2a0c::/48');
  });

  it('takes places from the given city file for the families it covers', () => {
    const h = index.resolve('8.8.8.8');
    expect(h.dimensions.find((d) => d.code === 'country')?.entity?.key).toBe('US');
    expect(h.subnetSource).toBe('fallback'); // 8.8.8.8 is not in the small CSV
    const v6 = index.resolve('2a0b::1');
    expect(v6.dimensions.find((d) => d.code === 'country')).toMatchObject({
      entity: null,
      reason: expect.stringMatching(/geo data/),
    });
  });

  it('falls back to the CSV where an ISP/ASN mmdb has no AS fields for an address', async () => {
    // the packaged city file carries no autonomous_system_* fields at all, so every lookup in
    // it comes up empty and the announced ranges answer instead
    const withMmdb = await loadNetworkData({
      asnCsvV4: join(dir, 'v4.csv'),
      asnCsvV6: join(dir, 'v6.csv'),
      maxmindIspMmdb: defaultDataFiles().cityMmdbV4,
      maxmindAsnMmdb: defaultDataFiles().cityMmdbV6,
    });
    expect(owner(withMmdb.resolve('1.0.6.5'))).toMatchObject({ asn: 'AS64503', subnet: '1.0.6.0/24', isp: 'narrow' });
  });

  it('rejects a missing file', async () => {
    await expect(loadNetworkData({ asnCsvV4: join(dir, 'missing.csv') })).rejects.toThrow(/ENOENT/);
  });
});

describe('placeFromRecord', () => {
  it('reads the MaxMind GeoLite2/GeoIP2 City record shape into the same keys as the packaged shape', () => {
    const maxmind = placeFromRecord({
      city: { geoname_id: 5392171, names: { en: 'San Jose' } },
      country: { iso_code: 'US', names: { en: 'United States' } },
      subdivisions: [{ iso_code: 'CA', names: { en: 'California' } }],
    });
    const packaged = placeFromRecord({ city: 'San Jose', country_code: 'US', state1: 'California', state2: '' });
    expect(maxmind).toEqual({ cc: 'US', countryName: 'United States', regionName: 'California', cityName: 'San Jose' });
    expect(packaged).toEqual(maxmind);
  });

  it('gives no place for a record without a country', () => {
    expect(placeFromRecord({ city: '', country_code: '' })).toBeNull();
    expect(placeFromRecord({ registered_country: { iso_code: 'US' } })).toBeNull();
  });
});
