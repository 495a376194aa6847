import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BLOCK_BOUNDS, blockHolds, parseBlock } from '../../src/domain/network/block.ts';

/** An address as a BigInt, and back to text through WHATWG URL (independent of the server's printers). */
const v4Text = (n: bigint) => [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 255n)).join('.');
const v6Text = (n: bigint) =>
  new URL(`http://[${n.toString(16).padStart(32, '0').match(/.{4}/g)!.join(':')}]/`).hostname.slice(1, -1);

describe('parseBlock: a CIDR block, bounded and canonical', () => {
  it('clears host bits and finds the first and last address of any block within the bounds (both families)', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.bigInt({ min: 0n, max: 2n ** 128n - 1n }),
        fc.integer({ min: 0, max: 128 }),
        (six, raw, p) => {
          const bits = six ? 128 : 32;
          const address = six ? raw : raw & 0xffffffffn;
          const prefix = BLOCK_BOUNDS[six ? 6 : 4] + (p % (bits - BLOCK_BOUNDS[six ? 6 : 4] + 1));
          const hostBits = BigInt(bits - prefix);
          const first = (address >> hostBits) << hostBits;
          const last = first + (1n << hostBits) - 1n;
          const text = six ? v6Text : v4Text;
          if (six && text(address).includes('.')) return; // an IPv4-mapped address: refused as a block (below)
          const parsed = parseBlock(`${text(address)}/${prefix}`);
          expect(parsed.ok).toBe(true);
          if (!parsed.ok) return;
          expect(parsed.block).toEqual({
            cidr: `${text(first)}/${prefix}`,
            version: six ? 6 : 4,
            prefix,
            first: text(first),
            last: text(last),
            size: 1n << hostBits,
            hostBitsCleared: first !== address,
          });
          // (an IPv4-mapped address, ::ffff:0:0/96, is the IPv4 address it carries: in no IPv6 block)
          const mapped = (n: bigint) => six && n >> 32n === 0xffffn;
          if (!mapped(last)) expect(blockHolds(parsed.block, text(last))).toBe(true);
          if (last < (1n << BigInt(bits)) - 1n && !mapped(last + 1n))
            expect(blockHolds(parsed.block, text(last + 1n))).toBe(false);
          if (first > 0n && !mapped(first - 1n)) expect(blockHolds(parsed.block, text(first - 1n))).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses blocks past the bounds, without a prefix, IPv4-mapped, or with a malformed prefix', () => {
    const reason = (text: string) => {
      const p = parseBlock(text);
      return p.ok ? null : p.reason;
    };
    expect(reason('10.0.0.0/15')).toContain('IPv4 /16');
    expect(reason('2001:db8::/47')).toContain('IPv6 /48');
    expect(reason('10.0.0.0/16')).toBeNull();
    expect(reason('2001:db8::/48')).toBeNull();
    expect(reason('10.0.0.1')).toContain('prefix length');
    expect(reason('::ffff:10.0.0.0/120')).toContain('IPv4-mapped');
    for (const bad of [
      '10.0.0.0/',
      '10.0.0.0/33',
      '10.0.0.0/-1',
      '10.0.0.0/1e1',
      '10.0.0.0/24/24',
      '2001:db8::/129',
      '10.0.0.0/ 24',
    ])
      expect(reason(bad), bad).not.toBeNull();
    const v4 = parseBlock('10.0.0.0/16');
    expect(v4.ok && blockHolds(v4.block, '2001:db8::1')).toBe(false);
    expect(v4.ok && blockHolds(v4.block, '10.0.255.255')).toBe(true);
  });
});
