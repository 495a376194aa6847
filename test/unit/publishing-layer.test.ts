/**
 * Mapping evidence onto entities (targets.ts) and the dimension-by-dimension summariser
 * (summarize.ts), which must give exactly what scoring's rollUp gives for the same evidence.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { NetworkIndex } from '../../src/domain/network/index.ts';
import type { EvidenceItem } from '../../src/domain/scoring/evidence.ts';
import { rollUp, type DirectEvidence } from '../../src/domain/scoring/rollup.ts';
import type { Layer } from '../../src/domain/publishing/gather.ts';
import { placementOf, summarizeLayer } from '../../src/domain/publishing/summarize.ts';
import { cidrTarget, MAX_CIDR_STEPS, subjectTarget, subnetsOfCidr } from '../../src/domain/publishing/targets.ts';
import { sharedNetwork } from '../helpers/network.ts';

const NOW = new Date('2026-03-01T00:00:00Z');
let network: NetworkIndex;
beforeAll(async () => {
  network = await sharedNetwork();
});

describe('subjectTarget', () => {
  it('maps ipaddress, asn and organization subjects, and nothing for other kinds', () => {
    expect(subjectTarget(network, 'ipaddress', '8.8.8.8')).toEqual({ kind: 'ip', ip: '8.8.8.8' });
    expect(subjectTarget(network, 'asn', '15169')).toEqual({ kind: 'entity', code: 'asn', key: 'AS15169' });
    expect(subjectTarget(network, 'asn', 'AS015169')).toEqual({ kind: 'entity', code: 'asn', key: 'AS15169' });
    expect(subjectTarget(network, 'organization', ' Google  LLC')).toEqual({
      kind: 'entity',
      code: 'org',
      key: 'google llc',
    });
    const orgOf8888 = network.resolve('8.8.8.8').dimensions.find((d) => d.code === 'org')!.entity!.key;
    expect(subjectTarget(network, 'organization', 'Google LLC'), 'same key as the network index').toMatchObject({
      key: orgOf8888,
    });
    for (const kind of ['domain', 'email', 'url', 'phone'])
      expect(subjectTarget(network, kind, 'x')).toEqual({ kind: 'none' });
    expect(subjectTarget(network, 'ipaddress', 'not-an-ip')).toEqual({ kind: 'none' });
    expect(subjectTarget(network, 'asn', 'many')).toEqual({ kind: 'none' });
  });

  it('a single-address CIDR is that IP', () => {
    expect(cidrTarget(network, '4.4.4.4/32')).toEqual({ kind: 'ip', ip: '4.4.4.4' });
    expect(cidrTarget(network, '2001:db8::1/128')).toEqual({ kind: 'ip', ip: '2001:db8::1' });
  });
});

describe('subnetsOfCidr', () => {
  it('walks every announced subnet a block overlaps, scaled by the share covered', () => {
    const r = subnetsOfCidr(network, '8.8.0.0/16')!;
    expect(r.truncated).toBe(false);
    expect(r.subnets.length).toBeGreaterThan(1);
    expect(r.subnets[0]).toEqual({ key: '8.8.0.0/24', name: '8.8.0.0/24', scale: 1 });
    expect(r.subnets.map((s) => s.key)).toContain('8.8.8.0/24');
    expect(new Set(r.subnets.map((s) => s.key)).size, 'no subnet twice').toBe(r.subnets.length);
    expect(subnetsOfCidr(network, '8.8.8.0/28')).toEqual({
      subnets: [{ key: '8.8.8.0/24', name: '8.8.8.0/24', scale: 1 / 16 }],
      truncated: false,
    });
  });

  it('steps over special-purpose space, which has no subnet', () => {
    expect(subnetsOfCidr(network, '10.0.0.0/8')).toEqual({ subnets: [], truncated: false });
  });

  it(`stops after ${MAX_CIDR_STEPS} steps and says so`, () => {
    const r = subnetsOfCidr(network, '0.0.0.0/0')!;
    expect(r.truncated).toBe(true);
    expect(r.subnets.length).toBeLessThanOrEqual(MAX_CIDR_STEPS);
    expect(r.subnets.length).toBeGreaterThan(MAX_CIDR_STEPS / 2);
  });
});

describe('summarizeLayer', () => {
  it('gives the same summaries and names as rollUp over IPv4, IPv6 and direct evidence', () => {
    const report = (reporter: string, hoursAgo: number, severity = 'high'): EvidenceItem => ({
      type: 'report',
      outcomeCode: 'fraud_confirmed',
      severity,
      at: new Date(NOW.getTime() - hoursAgo * 3600_000),
      reporter,
    });
    const ips = new Map<string, EvidenceItem[]>([
      ['8.8.8.8', [report('ws:1', 1), report('ws:2', 30), { type: 'rating', rating: -1, at: NOW, reporter: 'ws:1' }]],
      ['8.8.4.4', [report('ws:1', 5, 'critical')]],
      [
        '1.1.1.1',
        [
          { type: 'feed', feed: 'drop', weight: 0.7, at: NOW },
          { type: 'rating', rating: 1, at: NOW, reporter: 'ws:3' },
        ],
      ],
      ['2001:4860:4860::8888', [report('ws:2', 2)]],
      ['10.1.2.3', [report('ws:1', 1)]],
    ]);
    const feed: EvidenceItem = { type: 'feed', feed: 'drop', weight: 1, at: NOW };
    const direct: DirectEvidence[] = [
      { code: 'subnet', key: '8.8.8.0/24', items: [{ ...feed, scale: 0.25 }] },
      { code: 'asn', key: 'AS15169', items: [report('ws:3', 3)] },
      { code: 'org', key: 'cloudflare, inc.', items: [report('ws:3', 3)] },
    ];
    const layer: Layer = {
      ips,
      direct: new Map(
        direct.map((d) => [`${d.code}\u0000${d.key}`, { code: d.code, key: d.key, name: d.key, items: [...d.items] }]),
      ),
    };
    const hierarchies = [...ips.keys()].map((ip) => network.resolve(ip));
    const expected = rollUp(
      hierarchies.map((h) => ({ hierarchy: h, items: ips.get(h.ip)! })),
      direct,
      NOW,
    );
    const rows = [...summarizeLayer(layer, (ip) => placementOf(network.resolve(ip)), NOW)];
    const got = new Map(rows.map((r) => [`${r.code}\u0000${r.key}`, r.summary]));
    const want = new Map(
      [...expected].flatMap(([code, byKey]) => [...byKey].map(([key, s]) => [`${code}\u0000${key}`, s] as const)),
    );
    expect(got.size).toBe(want.size);
    expect(Object.fromEntries(got)).toEqual(Object.fromEntries(want));
    expect(rows.find((r) => r.code === 'org' && r.key === 'cloudflare, inc.')?.name, 'name from the network data').toBe(
      network.resolve('1.1.1.1').dimensions.find((d) => d.code === 'org')!.entity!.name,
    );
    expect(
      rows.filter((r) => r.code === 'subnet' && r.key.startsWith('10.')),
      'special addresses roll up nowhere',
    ).toEqual([]);
    // A filter summarises only the entities it names, each exactly as the whole layer does.
    const wanted = new Set([...got.keys()].filter((_, i) => i % 3 === 0));
    const some = [
      ...summarizeLayer(
        layer,
        (ip) => placementOf(network.resolve(ip)),
        NOW,
        (code, key) => wanted.has(`${code}\u0000${key}`),
      ),
    ];
    expect(new Set(some.map((r) => `${r.code}\u0000${r.key}`))).toEqual(wanted);
    for (const r of some) expect(r.summary).toEqual(got.get(`${r.code}\u0000${r.key}`));
  });
});
