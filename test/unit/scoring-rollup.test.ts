/**
 * Roll-up: an IP's evidence reaches its larger entities scaled by their size, one noisy IP does
 * not paint its network, many bad IPs do, and special addresses reach nothing.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { DimensionCode, Hierarchy } from '../../src/domain/network/types.ts';
import type { EvidenceItem } from '../../src/domain/scoring/evidence.ts';
import {
  collectEntityEvidence,
  effectiveSize,
  rollUp,
  rollupWeight,
  type IpEvidence,
} from '../../src/domain/scoring/rollup.ts';

const NOW = new Date('2026-03-01T00:00:00Z');
const report = (reporter: string, severity = 'high'): EvidenceItem => ({
  type: 'report',
  outcomeCode: 'fraud_confirmed',
  severity,
  at: NOW,
  reporter,
});

/** An IPv4 address 10.0.x.y in subnet 10.0.x.0/24, AS64500 (a /16) and a 2^30-address country. */
function v4(n: number): Hierarchy {
  const ip = `10.0.${n >> 8}.${n & 255}`;
  const entity = (code: DimensionCode, key: string, size: number) => ({
    code,
    entity: { code, key, name: key, size },
    reason: null,
  });
  return {
    ip,
    version: 4,
    special: null,
    subnetSource: 'announced',
    dimensions: [
      entity('ip', ip, 1),
      entity('subnet', `10.0.${n >> 8}.0/24`, 256),
      entity('isp', 'example isp', 2 ** 16),
      entity('asn', 'AS64500', 2 ** 16),
      entity('org', 'example org', 2 ** 16),
      { code: 'city', entity: null, reason: 'the geo data names no city for this address' },
      entity('region', 'XX-01', 2 ** 24),
      entity('country', 'XX', 2 ** 30),
    ],
  };
}

const summaryOf = (ips: IpEvidence[], code: DimensionCode, key: string) => rollUp(ips, [], NOW).get(code)?.get(key);

describe('rollupWeight / effectiveSize', () => {
  it('gives a single address full weight and shrinks with size', () => {
    expect([rollupWeight(1), rollupWeight(256), rollupWeight(65536), rollupWeight(0)]).toEqual([1, 1 / 16, 1 / 256, 1]);
    expect(rollupWeight(2 ** 30)).toBeLessThan(0.0001);
  });
  it('counts IPv6 in /64 units', () => {
    expect([effectiveSize(2 ** 64, 6), effectiveSize(2 ** 80, 6), effectiveSize(1, 6), effectiveSize(256, 4)]).toEqual([
      1, 65536, 1, 256,
    ]);
  });
});

describe('rollUp', () => {
  it('passes IP items to every matched entity with scale and origin, and the IP gets them unscaled', () => {
    const items = [report('ws1')];
    const collected = collectEntityEvidence([{ hierarchy: v4(5), items }]);
    expect(collected.get('ip')?.get('10.0.0.5')?.items).toEqual(items);
    expect(collected.get('subnet')?.get('10.0.0.0/24')?.items).toEqual([
      { ...items[0], scale: 1 / 16, origin: '10.0.0.5' },
    ]);
    expect(collected.get('country')?.get('XX')?.items[0]).toMatchObject({ scale: 1 / 2 ** 15, origin: '10.0.0.5' });
    expect(collected.has('city'), 'the unmatched city receives nothing').toBe(false);
  });

  it('keeps one bad IP, even one reported 200 times by one workspace, from painting its networks', () => {
    const spam = Array.from({ length: 200 }, () => report('noisy', 'critical'));
    const ips = [{ hierarchy: v4(1), items: spam }];
    expect(summaryOf(ips, 'ip', '10.0.0.1')?.score).toBe(63);
    expect(summaryOf(ips, 'subnet', '10.0.0.0/24')?.score).toBeLessThanOrEqual(6);
    expect(summaryOf(ips, 'asn', 'AS64500')?.score).toBe(0);
    expect(summaryOf(ips, 'country', 'XX')?.score).toBe(0);
  });

  it('raises a /24 far more for 50 distinct bad IPs than for one', () => {
    const one = summaryOf([{ hierarchy: v4(0), items: [report('ws0')] }], 'subnet', '10.0.0.0/24')!.score;
    const fifty = Array.from({ length: 50 }, (_, i) => ({ hierarchy: v4(i), items: [report(`ws${i}`)] }));
    const fiftyOneWorkspace = Array.from({ length: 50 }, (_, i) => ({ hierarchy: v4(i), items: [report('ws')] }));
    expect({
      one,
      fifty: summaryOf(fifty, 'subnet', '10.0.0.0/24')!.score,
      fiftyOneWorkspace: summaryOf(fiftyOneWorkspace, 'subnet', '10.0.0.0/24')!.score,
    }).toEqual({ one: 3, fifty: 79, fiftyOneWorkspace: 26 }); // one workspace alone stays low (decision 0039)
    expect(summaryOf(fifty, 'subnet', '10.0.0.0/24')?.counts.reports).toBe(50);
    expect(summaryOf(fifty, 'subnet', '10.0.0.0/24')?.reporters).toBe(50);
  });

  it('merges direct evidence about an entity with what its IPs pass up', () => {
    const direct = [{ code: 'asn' as const, key: 'AS64500', items: [report('ws9'), report('ws8')] }];
    const alone = rollUp([], direct, NOW).get('asn')?.get('AS64500')?.score;
    const withIps = rollUp(
      Array.from({ length: 20 }, (_, i) => ({ hierarchy: v4(i), items: [report(`w${i}`)] })),
      direct,
      NOW,
    )
      .get('asn')
      ?.get('AS64500')?.score;
    expect(alone).toBe(42); // two workspaces, each capped at NETWORK_SOURCE_CAP on a network
    expect(withIps).toBeGreaterThan(alone!);
  });

  it('rolls a special-purpose address up to nothing but itself', () => {
    const special: Hierarchy = {
      ip: '192.168.1.1',
      version: 4,
      special: { cidr: '192.168.0.0/16', name: 'Private-Use', reason: 'RFC 1918' },
      subnetSource: 'none',
      dimensions: v4(1).dimensions.map((d) =>
        d.code === 'ip' ? { ...d, entity: { ...d.entity!, key: '192.168.1.1' } } : d,
      ),
    };
    const out = rollUp([{ hierarchy: special, items: [report('a')] }], [], NOW);
    expect([...out.keys()]).toEqual(['ip']);
    expect(out.get('ip')?.get('192.168.1.1')?.score).toBe(41);
  });

  it('is monotone: adding a bad item to any IP never lowers any entity', () => {
    const itemArb = fc
      .tuple(fc.constantFrom('a', 'b', 'c'), fc.constantFrom('low', 'high', 'critical'))
      .map(([r, s]) => report(r, s));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 600 }), fc.array(itemArb, { maxLength: 4 })), { maxLength: 12 }),
        fc.integer({ min: 0, max: 600 }),
        itemArb,
        (ipSpecs, target, extra) => {
          const ips = ipSpecs.map(([n, items]) => ({ hierarchy: v4(n), items }));
          const before = rollUp(ips, [], NOW);
          const after = rollUp([...ips, { hierarchy: v4(target), items: [extra] }], [], NOW);
          for (const [code, byKey] of before) {
            for (const [key, summary] of byKey) {
              expect(after.get(code)?.get(key)?.score, `${code} ${key}`).toBeGreaterThanOrEqual(summary.score);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
