// Resolution of real addresses against the packaged data (@ip-location-db/asn + geolite2-city-mmdb).
// Expected values were read from the data files first; when the data is updated, re-read them.
import { beforeAll, describe, expect, it } from 'vitest';
import { DIMENSION_CODES, type Hierarchy, type NetworkIndex } from '../../src/domain/network/index.ts';
import { sharedNetwork } from '../helpers/network.ts';

let index: NetworkIndex;
beforeAll(async () => {
  index = await sharedNetwork();
}, 300_000); // builds the index from the data files: minutes on a machine busy with other suites

/** code → key (or null) so a failure prints the whole hierarchy compactly. */
function keys(h: Hierarchy): Record<string, string | null> {
  return Object.fromEntries(h.dimensions.map((d) => [d.code, d.entity?.key ?? null]));
}
function entity(h: Hierarchy, code: string) {
  return h.dimensions.find((d) => d.code === code)?.entity ?? null;
}

describe('loadNetworkData (packaged data)', () => {
  it('loads every range and organisation of the packaged files', () => {
    const stats = index.stats();
    expect(stats.v4Ranges).toBeGreaterThan(400_000);
    expect(stats.v6Ranges).toBeGreaterThan(100_000);
    expect(stats.orgs).toBeGreaterThan(50_000);
    expect(stats.loadMs).toBeGreaterThan(0);
  });

  it('always lists the eight dimensions in DIMENSION_CODES order', () => {
    expect(DIMENSION_CODES).toEqual(['ip', 'subnet', 'isp', 'asn', 'org', 'city', 'region', 'country']);
    for (const ip of ['1.1.1.1', '10.1.2.3', '9.100.1.2', '2606:4700:4700::1111']) {
      expect(
        index.resolve(ip).dimensions.map((d) => d.code),
        ip,
      ).toEqual(DIMENSION_CODES);
    }
  });
});

describe('resolve: well-known public addresses', () => {
  it('1.1.1.1 is Cloudflare AS13335 in 1.1.1.0/24; the geo data has no place for it', () => {
    const h = index.resolve('1.1.1.1');
    expect(keys(h)).toEqual({
      ip: '1.1.1.1',
      subnet: '1.1.1.0/24',
      isp: 'cloudflare',
      asn: 'AS13335',
      org: 'cloudflare, inc.',
      city: null,
      region: null,
      country: null,
    });
    expect(h).toMatchObject({ version: 4, special: null, subnetSource: 'announced' });
    expect(entity(h, 'org')?.name).toBe('Cloudflare, Inc.');
    expect(entity(h, 'subnet')?.size).toBe(256);
    expect(h.dimensions.find((d) => d.code === 'country')?.reason).toMatch(/geo data has no location/);
  });

  it('8.8.8.8 is Google AS15169 in the US (no city or region in the data)', () => {
    const h = index.resolve('8.8.8.8');
    expect(keys(h)).toEqual({
      ip: '8.8.8.8',
      subnet: '8.8.8.0/24',
      isp: 'google',
      asn: 'AS15169',
      org: 'google llc',
      city: null,
      region: null,
      country: 'US',
    });
    expect(entity(h, 'country')?.name).toBe('United States');
    expect(h.dimensions.find((d) => d.code === 'city')?.reason).toMatch(/no city/);
  });

  it('2606:4700:4700::1111 is Cloudflare in its /48', () => {
    const h = index.resolve('2606:4700:4700::1111');
    expect(keys(h)).toMatchObject({
      subnet: '2606:4700:4700::/48',
      asn: 'AS13335',
      isp: 'cloudflare',
      org: 'cloudflare, inc.',
    });
    expect(h.version).toBe(6);
    expect(entity(h, 'subnet')?.size).toBe(2 ** 80);
  });

  it('2001:4860:4860::8888 is Google, subnet = largest block of its announced range holding it', () => {
    // the range is 2001:4860:480d:: – 2001:4860:ffff:...; the block holding ...:4860:: is /42
    const h = index.resolve('2001:4860:4860::8888');
    expect(keys(h)).toMatchObject({ subnet: '2001:4860:4840::/42', asn: 'AS15169', org: 'google llc', country: 'US' });
  });

  it('a Comcast residential address resolves down to its city', () => {
    const h = index.resolve('73.15.2.3');
    expect(keys(h)).toEqual({
      ip: '73.15.2.3',
      subnet: '73.0.0.0/8',
      isp: 'comcast cable communications',
      asn: 'AS7922',
      org: 'comcast cable communications, llc',
      city: 'US-california-san_jose',
      region: 'US-california',
      country: 'US',
    });
    expect(entity(h, 'city')?.name).toBe('San Jose');
    expect(entity(h, 'region')?.name).toBe('California');
    expect(entity(h, 'isp')?.name).toBe('Comcast Cable Communications');
  });

  it('nested sizes grow from ip to country for a residential address', () => {
    const h = index.resolve('86.1.2.3'); // Virgin Media, Wakefield, England
    const size = (code: string) => entity(h, code)?.size ?? NaN;
    expect(keys(h)).toMatchObject({ asn: 'AS5089', isp: 'virgin media', city: 'GB-england-wakefield', country: 'GB' });
    expect(size('ip')).toBe(1);
    expect(size('subnet')).toBeLessThanOrEqual(size('asn'));
    expect(size('org')).toBeLessThanOrEqual(size('isp'));
    expect(size('city')).toBeLessThan(size('region'));
    expect(size('region')).toBeLessThan(size('country'));
  });

  it('an unannounced public address falls back to its /24 with no owner', () => {
    const h = index.resolve('9.100.1.2'); // 9.9.10.0 – 9.127.255.255 has no announced route in the data
    expect(h.subnetSource).toBe('fallback');
    expect(h.special).toBeNull();
    expect(entity(h, 'subnet')).toEqual({ code: 'subnet', key: '9.100.1.0/24', name: '9.100.1.0/24', size: 256 });
    for (const code of ['isp', 'asn', 'org']) {
      expect(
        h.dimensions.find((d) => d.code === code),
        code,
      ).toMatchObject({ entity: null, reason: expect.stringMatching(/no announced route/) });
    }
  });

  it('keys are stable across calls and URL-friendly', () => {
    const ips = ['1.1.1.1', '8.8.8.8', '73.15.2.3', '86.1.2.3', '2a00:1450:4001::1'];
    const first = ips.map((ip) => keys(index.resolve(ip)));
    expect(ips.map((ip) => keys(index.resolve(ip)))).toEqual(first);
    for (const k of first) {
      expect(k.asn ?? 'AS1').toMatch(/^AS\d+$/);
      if (k.country) expect(k.country).toMatch(/^[A-Z]{2}$/);
      if (k.region) expect(k.region).toMatch(/^[A-Z]{2}-[a-z0-9_]+$/);
      if (k.city) expect(k.city).toMatch(/^[A-Z]{2}-[a-z0-9_]*-[a-z0-9_]+$/);
    }
  });

  it('accepts non-canonical text by canonicalising it, and refuses what is not an IP', () => {
    expect(index.resolve('::ffff:1.1.1.1').ip).toBe('1.1.1.1');
    expect(index.resolve('2606:4700:4700:0:0:0:0:1111').ip).toBe('2606:4700:4700::1111');
    expect(() => index.resolve('not-an-ip')).toThrow(/not an IP address/);
  });
});
