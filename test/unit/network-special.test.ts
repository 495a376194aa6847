// Special-purpose addresses (IANA registries): `special` is set, only `ip` matches, never an error.
import { beforeAll, describe, expect, it } from 'vitest';
import { findSpecialRange, parseIp, type NetworkIndex } from '../../src/domain/network/index.ts';
import { bytesToWords } from '../../src/domain/network/address-words.ts';
import { sharedNetwork } from '../helpers/network.ts';

let index: NetworkIndex;
beforeAll(async () => {
  index = await sharedNetwork();
}, 300_000); // builds the index from the data files: minutes on a machine busy with other suites

const CASES: Array<[ip: string, name: string, cidr: string]> = [
  ['10.1.2.3', 'private-use', '10.0.0.0/8'],
  ['172.31.255.255', 'private-use', '172.16.0.0/12'],
  ['192.168.1.1', 'private-use', '192.168.0.0/16'],
  ['127.0.0.1', 'loopback', '127.0.0.0/8'],
  ['169.254.1.1', 'link-local', '169.254.0.0/16'],
  ['100.64.0.1', 'shared-address-space', '100.64.0.0/10'],
  ['192.0.2.1', 'documentation', '192.0.2.0/24'],
  ['198.51.100.7', 'documentation', '198.51.100.0/24'],
  ['203.0.113.200', 'documentation', '203.0.113.0/24'],
  ['198.19.0.1', 'benchmarking', '198.18.0.0/15'],
  ['224.0.0.251', 'multicast', '224.0.0.0/4'],
  ['240.1.2.3', 'reserved', '240.0.0.0/4'],
  ['255.255.255.255', 'limited-broadcast', '255.255.255.255/32'],
  ['0.1.2.3', 'this-network', '0.0.0.0/8'],
  ['2001:db8::1', 'documentation', '2001:db8::/32'],
  ['fe80::1', 'link-local', 'fe80::/10'],
  ['::1', 'loopback', '::1/128'],
  ['::', 'unspecified', '::/128'],
  ['fc00::1', 'unique-local', 'fc00::/7'],
  ['fd12:3456::1', 'unique-local', 'fc00::/7'],
  ['ff02::1', 'multicast', 'ff00::/8'],
  ['64:ff9b::808:808', 'nat64', '64:ff9b::/96'],
  ['2001:0:4136:e378::1', 'teredo', '2001::/32'],
  ['2002:c000:204::1', '6to4', '2002::/16'],
  ['4000::1', 'reserved', '4000::/2'],
];

describe('special-purpose addresses', () => {
  it.each(CASES)('%s is %s (%s): ip matched, every other dimension unmatched with a reason', (ip, name, cidr) => {
    const h = index.resolve(ip);
    expect(h.special).toMatchObject({ name, cidr });
    expect(h.subnetSource).toBe('none');
    const [first, ...rest] = h.dimensions;
    expect(first).toEqual({ code: 'ip', entity: { code: 'ip', key: ip, name: ip, size: 1 }, reason: null });
    for (const d of rest) {
      expect(d.entity, d.code).toBeNull();
      expect(d.reason, d.code).toContain(`${name} address`);
    }
  });

  it('explains private space as not routed on the public internet', () => {
    expect(index.resolve('10.1.2.3').dimensions[7]?.reason).toMatch(
      /private-use address .*not routed on the public internet/,
    );
  });

  it('leaves the edges of special blocks as ordinary addresses', () => {
    for (const ip of [
      '9.255.255.255',
      '11.0.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '198.17.255.255',
      '198.20.0.0',
      '223.255.255.255',
      '2001:db7:ffff::1',
      '2001:db9::1',
      '2000::1',
      '3ffe::1',
    ]) {
      const parsed = parseIp(ip);
      if (!parsed.ok) throw new Error(ip);
      expect(findSpecialRange(bytesToWords(parsed.bytes)), ip).toBeNull();
    }
  });

  it('prefers the most specific block (limited broadcast inside reserved 240/4)', () => {
    expect(findSpecialRange([0xffffffff])?.name).toBe('limited-broadcast');
    expect(findSpecialRange([0xfffffffe])?.name).toBe('reserved');
  });
});
