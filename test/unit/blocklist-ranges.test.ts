import { describe, expect, it } from 'vitest';
import { RangeSet, rangeOf } from '../../src/domain/lookups/address-ranges.ts';
import { renderBlocklist } from '../../src/domain/lookups/blocklist-render.ts';
import type { BlocklistList } from '../../src/domain/lookups/blocklist.ts';

/** The blocklist's range arithmetic and its firewall files (docs/api.md#blocklist). */
describe('blocklist ranges and formats', () => {
  it('reads an address or a block as its first and last address', () => {
    expect(rangeOf('203.0.113.7')).toEqual({ version: 4, start: 0xcb007107n, end: 0xcb007107n });
    expect(rangeOf('203.0.113.0/24')).toEqual({ version: 4, start: 0xcb007100n, end: 0xcb0071ffn });
    expect(rangeOf('2001:db8::/32')).toEqual({ version: 6, start: 0x20010db8n << 96n, end: (0x20010db9n << 96n) - 1n });
    expect(rangeOf('not an ip')).toBeNull();
    expect(rangeOf('10.0.0.0/33')).toBeNull();
  });

  it('answers overlap against many ranges, nested or apart, per family', () => {
    const set = new RangeSet(['10.0.0.0/8', '10.1.2.3', '192.0.2.128/25', '2001:db8::1'].map((t) => rangeOf(t)!));
    const overlaps = (t: string) => set.overlaps(rangeOf(t)!);
    expect(overlaps('10.200.0.0/16')).toBe(true); // inside the /8
    expect(overlaps('0.0.0.0/4')).toBe(true); // holds the /8
    expect(overlaps('11.0.0.0/8')).toBe(false);
    expect(overlaps('192.0.2.0/25')).toBe(false); // the neighbour half
    expect(overlaps('192.0.2.0/24')).toBe(true);
    expect(overlaps('192.0.2.200')).toBe(true);
    expect(overlaps('2001:db8::/64')).toBe(true);
    expect(overlaps('2001:db9::/32')).toBe(false);
    expect(new RangeSet([]).overlaps(rangeOf('10.0.0.1')!)).toBe(false);
  });

  const list = (entries: string[]): BlocklistList => ({
    threshold: 60,
    thresholdLevel: 'high',
    matched: entries.length,
    truncated: false,
    rulesNotListed: 0,
    publication: { version: 1, publishedAt: null },
    entries: entries.map((entry) => ({
      entry,
      kind: entry.includes('/') ? 'block' : 'ip',
      score: 90,
      level: 'critical',
      source: 'evidence',
    })),
  });

  it('leaves out of the nftables and ipset sets the entries inside another listed block', () => {
    const l = list(['192.0.2.7', '192.0.2.0/24', '198.51.100.1', '2001:db8::/48', '2001:db8::5']);
    expect(renderBlocklist(l, 'text', 'x')).toBe('192.0.2.7\n192.0.2.0/24\n198.51.100.1\n2001:db8::/48\n2001:db8::5\n');
    const nft = renderBlocklist(l, 'nftables', 'edge');
    expect(nft).toMatch(/set edge_v4 \{[^}]*elements = \{\s*192\.0\.2\.0\/24,\s*198\.51\.100\.1\s*\}/);
    expect(nft).toMatch(/set edge_v6 \{[^}]*elements = \{\s*2001:db8::\/48\s*\}/);
    const ipset = renderBlocklist(l, 'ipset', 'edge').split('\n');
    expect(ipset.filter((x) => x.startsWith('add '))).toEqual([
      'add edge_v4_new 192.0.2.0/24',
      'add edge_v4_new 198.51.100.1',
      'add edge_v6_new 2001:db8::/48',
    ]);
    expect(ipset).toContain('swap edge_v4_new edge_v4');
  });

  it('writes an empty set without an elements clause (nft refuses an empty one)', () => {
    const nft = renderBlocklist(list([]), 'nftables', 'risk_api');
    expect(nft).not.toContain('elements');
    expect(nft.startsWith('table inet risk_api\ndelete table inet risk_api\n')).toBe(true);
  });
});
