// ISP brand derivation on organisation names as they appear in @ip-location-db/asn.
import { describe, expect, it } from 'vitest';
import { ispBrandName, ispKeyOf, orgKeyOf } from '../../src/domain/network/index.ts';

const REAL_NAMES: Array<[org: string, brand: string]> = [
  ['Comcast Cable Communications, LLC', 'Comcast Cable Communications'],
  ['Cloudflare, Inc.', 'Cloudflare'],
  ['Google LLC', 'Google'],
  ['Amazon.com, Inc.', 'Amazon.com'],
  ['Akamai International B.V.', 'Akamai International'],
  ['Charter Communications Inc', 'Charter Communications'],
  ['Charter Communications, Inc', 'Charter Communications'],
  ['Charter Communications LLC', 'Charter Communications'],
  ['Orange S.A.', 'Orange'],
  ['Deutsche Telekom AG', 'Deutsche Telekom'],
  ['British Telecommunications PLC', 'British Telecommunications'],
  ['TELEFONICA DE ESPANA S.A.U.', 'TELEFONICA DE ESPANA'],
  ['Telefonica Moviles El Salvador S.A. de C.V.', 'Telefonica Moviles El Salvador'],
  ['Telefonica Germany GmbH & Co.OHG', 'Telefonica Germany'],
  ['Orange Polska Spolka Akcyjna', 'Orange Polska'],
  ['Gtelecom Pty Ltd', 'Gtelecom'],
  ['TOT Public Company Limited', 'TOT'],
  ['Virgin Media Limited', 'Virgin Media'],
  ['LLC "SPUTNIK"', 'SPUTNIK'],
  ['Hurricane Electric LLC', 'Hurricane Electric'],
  ['Verizon Business', 'Verizon Business'],
  ['DNS-OARC', 'DNS-OARC'],
];

describe('ispBrandName', () => {
  it.each(REAL_NAMES)('%s → %s', (org, brand) => {
    expect(ispBrandName(org)).toBe(brand);
  });

  it('groups sibling legal entities under one isp key', () => {
    const keys = new Set(
      [
        'Charter Communications Inc',
        'Charter Communications, Inc',
        'Charter Communications LLC',
        'Charter Communications',
      ].map(ispKeyOf),
    );
    expect([...keys]).toEqual(['charter communications']);
  });

  it('never strips a name down to nothing', () => {
    expect(ispBrandName('LLC')).toBe('LLC');
    expect(ispBrandName('Limited')).toBe('Limited');
  });
});

describe('orgKeyOf', () => {
  it('lower-cases and collapses whitespace only', () => {
    expect(orgKeyOf('  Comcast   Cable Communications,  LLC ')).toBe('comcast cable communications, llc');
    expect(orgKeyOf('TELEFONICA DE ESPANA S.A.U.')).toBe('telefonica de espana s.a.u.');
  });
});
