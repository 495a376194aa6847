// Address arithmetic behind the subnet dimension, checked against brute force and ip.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cidrText, networkOf, prefixInsideRange } from '../../src/domain/network/cidr.ts';
import { bytesToWords, parseV4, parseV6Into, v6Text } from '../../src/domain/network/address-words.ts';
import { parseIp } from '../../src/domain/network/ip.ts';

/** Brute force: the smallest prefix length whose block around ip stays inside [start, end]. */
function bruteForce(ip: number, start: number, end: number): number {
  for (let p = 0; p <= 32; p++) {
    const size = 2 ** (32 - p);
    const net = Math.floor(ip / size) * size;
    if (net >= start && net + size - 1 <= end) return p;
  }
  throw new Error('unreachable');
}

describe('prefixInsideRange', () => {
  it('matches brute force on random IPv4 ranges', () => {
    const u32 = fc.integer({ min: 0, max: 0xffffffff });
    fc.assert(
      fc.property(u32, u32, u32, (a, b, c) => {
        const [start, ip, end] = [a, b, c].sort((x, y) => x - y) as [number, number, number];
        expect(prefixInsideRange([ip], [start], [end])).toBe(bruteForce(ip, start, end));
      }),
      { numRuns: 2000 },
    );
  });

  it('returns the prefix itself for a range that is one prefix', () => {
    expect(cidrText([0x01010101], prefixInsideRange([0x01010101], [0x01010100], [0x010101ff]))).toBe('1.1.1.0/24');
  });

  it('picks the block of the range decomposition holding an IPv6 address', () => {
    const w = (t: string) => {
      const out = [0, 0, 0, 0];
      if (!parseV6Into(t, out, 0)) throw new Error(t);
      return out;
    };
    const ip = w('2001:4860:4860::8888');
    const p = prefixInsideRange(ip, w('2001:4860:480d::'), w('2001:4860:ffff:ffff:ffff:ffff:ffff:ffff'));
    expect(cidrText(ip, p)).toBe('2001:4860:4840::/42');
    expect(cidrText(ip, 128)).toBe('2001:4860:4860::8888/128');
    expect(networkOf(ip, 0)).toEqual([0, 0, 0, 0]);
  });
});

describe('fast address parsers agree with parseIp', () => {
  it('IPv6 text → words → RFC 5952 text round-trips like parseIp', () => {
    fc.assert(
      fc.property(fc.ipV6(), (text) => {
        const parsed = parseIp(text);
        fc.pre(parsed.ok && parsed.version === 6 && !text.includes('.'));
        if (!parsed.ok) return;
        const words = [0, 0, 0, 0];
        expect(parseV6Into(text, words, 0), text).toBe(true);
        expect(words).toEqual(bytesToWords(parsed.bytes));
        expect(v6Text(words)).toBe(parsed.canonical);
      }),
      { numRuns: 2000 },
    );
  });

  it('IPv4 parser accepts exactly what parseIp accepts', () => {
    for (const text of [
      '1.2.3.4',
      '0.0.0.0',
      '255.255.255.255',
      '01.2.3.4',
      '256.1.1.1',
      '1.2.3',
      '1.2.3.4.5',
      '1..2.3',
      'a.b.c.d',
    ]) {
      const parsed = parseIp(text);
      expect(parseV4(text) >= 0, text).toBe(parsed.ok);
    }
  });

  it('refuses malformed IPv6 text', () => {
    for (const text of [
      '1:2:3:4:5:6:7',
      '1::2::3',
      ':1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:8:9',
      '12345::',
      '1:2:3:4:5:6:7:',
    ]) {
      expect(parseV6Into(text, [0, 0, 0, 0], 0), text).toBe(false);
    }
  });
});
