import { describe, expect, it } from 'vitest';
import { normalizeSubjectKey } from '../../src/domain/subjects/normalize.ts';

const good = (key: string) => ({ ok: true, key });
const bad = (fragment: string) => ({ ok: false, reason: expect.stringContaining(fragment) });

describe('ipaddress keys', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['  192.0.2.1 ', '192.0.2.1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
  ])('%j → %j', (input, key) => {
    expect(normalizeSubjectKey('ipaddress', input)).toEqual(good(key));
  });

  it.each([
    ['010.0.0.1', 'not a valid'],
    ['256.1.1.1', 'not a valid'],
    ['fe80::1%eth0', 'zone id'],
    ['example.com', 'not a valid'],
    ['', 'empty'],
  ])('refuses %j', (input, reason) => {
    expect(normalizeSubjectKey('ipaddress', input)).toEqual(bad(reason));
  });
});

describe('cidr keys', () => {
  it.each([
    ['192.0.2.0/24', '192.0.2.0/24'],
    ['192.0.2.77/24', '192.0.2.0/24'],
    ['10.1.2.3/8', '10.0.0.0/8'],
    ['203.0.113.9/32', '203.0.113.9/32'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['2001:DB8:ABCD:12::1/48', '2001:db8:abcd::/48'],
    ['2001:db8::1/128', '2001:db8::1/128'],
    ['2001:db8:ffff::/33', '2001:db8:8000::/33'],
    ['::ffff:10.9.8.7/104', '10.0.0.0/8'],
    ['::ffff:10.9.8.7/128', '10.9.8.7/32'],
  ])('%j → %j', (input, key) => {
    expect(normalizeSubjectKey('cidr', input)).toEqual(good(key));
  });

  it.each([
    ['192.0.2.0', 'CIDR notation'],
    ['192.0.2.0/33', 'over 32'],
    ['2001:db8::/129', 'over 128'],
    ['192.0.2.0/024', 'decimal prefix length'],
    ['192.0.2.0/', 'decimal prefix length'],
    ['192.0.2.0/-1', 'decimal prefix length'],
    ['192.0.2/24', 'address part'],
    ['::ffff:10.0.0.0/64', '96 to 128'],
  ])('refuses %j', (input, reason) => {
    expect(normalizeSubjectKey('cidr', input)).toEqual(bad(reason));
  });
});

describe('asn keys', () => {
  it.each([
    ['13335', '13335'],
    ['AS13335', '13335'],
    ['as13335', '13335'],
    ['As 13335', '13335'],
    [' AS64512 ', '64512'],
    ['1', '1'],
    ['4294967294', '4294967294'],
    ['1.10', '65546'],
  ])('%j → %j', (input, key) => {
    expect(normalizeSubjectKey('asn', input)).toEqual(good(key));
  });

  it.each([
    ['0', 'reserved'],
    ['AS0', 'reserved'],
    ['23456', 'AS_TRANS'],
    ['65535', 'reserved'],
    ['4294967295', 'reserved'],
    ['4294967296', 'at most 4294967295'],
    ['ASN13335', 'AS number'],
    ['AS-13335', 'AS number'],
    ['13335a', 'AS number'],
    ['1.65536', 'asdot'],
    ['', 'AS number'],
  ])('refuses %j', (input, reason) => {
    expect(normalizeSubjectKey('asn', input)).toEqual(bad(reason));
  });
});
