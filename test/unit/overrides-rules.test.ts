/**
 * The override rules' pure parts: reading a target, the index the score path asks (precedence, expiry, versions
 * arriving out of order, lookups with 10,000 rules) and what each action does to a score.
 */
import { explainLayers } from '../../src/domain/scoring/layers.ts';
import { describe, expect, it } from 'vitest';
import { parseTarget } from '../../src/domain/overrides/target.ts';
import { WorkspaceRules, type HeldRule } from '../../src/domain/overrides/rule-index.ts';
import { applyOverride, overriddenScore } from '../../src/domain/overrides/apply.ts';
import type { Hierarchy } from '../../src/domain/network/types.ts';
import type { IpScore } from '../../src/domain/scoring/score.ts';
import { DIMENSION_CODES } from '../../src/domain/network/types.ts';

function hierarchy(ip: string, asn = 'AS64500', country = 'NL'): Hierarchy {
  return {
    ip,
    version: ip.includes(':') ? 6 : 4,
    special: null,
    subnetSource: 'announced',
    dimensions: DIMENSION_CODES.map((code) => ({
      code,
      reason: null,
      entity:
        code === 'asn'
          ? { code, key: asn, name: asn, size: 1 }
          : code === 'country'
            ? { code, key: country, name: country, size: 1 }
            : null,
    })),
  };
}

let nextId = 1;
function rule(targetKind: HeldRule['targetKind'], target: string, more: Partial<HeldRule> = {}): HeldRule {
  return {
    id: nextId++,
    workspaceId: 1,
    targetKind,
    target,
    action: 'deny',
    points: 0,
    reason: 'r',
    expiresAt: null,
    expiredAt: null,
    revision: 1,
    ...more,
  };
}

describe('override targets', () => {
  it('reads each kind in its canonical form', () => {
    expect(parseTarget(' 203.0.113.7 ')).toEqual({ ok: true, target: { kind: 'ip', key: '203.0.113.7', version: 4 } });
    expect(parseTarget('2001:DB8::1')).toMatchObject({ ok: true, target: { kind: 'ip', key: '2001:db8::1' } });
    expect(parseTarget('203.0.113.0/24')).toMatchObject({
      ok: true,
      target: { kind: 'cidr', key: '203.0.113.0/24', prefix: 24 },
    });
    expect(parseTarget('2001:db8:0::/48')).toMatchObject({ ok: true, target: { kind: 'cidr', key: '2001:db8::/48' } });
    expect(parseTarget('as64500')).toEqual({ ok: true, target: { kind: 'asn', key: 'AS64500' } });
    expect(parseTarget('nl')).toEqual({ ok: true, target: { kind: 'country', key: 'NL' } });
  });

  it('refuses host bits, blocks past the bound, unknown countries, AS0 and anything else', () => {
    for (const bad of [
      '203.0.113.7/24',
      '10.0.0.0/7',
      '2001:db8::/15',
      '1.2.3.4/33',
      '::ffff:1.2.3.0/120',
      'XX',
      'ZZ',
      'AS0',
      'AS4294967296',
      'example.com',
      '',
      '1.2.3',
    ]) {
      expect(parseTarget(bad).ok, bad).toBe(false);
    }
  });
});

describe('the rule index', () => {
  it('answers the most specific rule in force, falling back past one that has lapsed', () => {
    const rules = new WorkspaceRules();
    const country = rule('country', 'NL');
    const asn = rule('asn', 'AS64500');
    const wide = rule('cidr', '198.51.0.0/16');
    const narrow = rule('cidr', '198.51.100.0/24', { expiresAt: new Date(2_000) });
    const ip = rule('ip', '198.51.100.9');
    for (const r of [ip, narrow, wide, asn, country]) rules.keep(r);
    const h = hierarchy('198.51.100.9');
    expect(rules.find(h, 1_000)?.id).toBe(ip.id);
    expect(rules.find(hierarchy('198.51.100.10'), 1_000)?.id).toBe(narrow.id);
    expect(rules.find(hierarchy('198.51.100.10'), 3_000)?.id).toBe(wide.id); // the /24 has lapsed: the /16 applies
    expect(rules.find(hierarchy('198.52.0.1'), 1_000)?.id).toBe(asn.id);
    expect(rules.find(hierarchy('198.52.0.1', 'AS1'), 1_000)?.id).toBe(country.id);
    expect(rules.find(hierarchy('198.52.0.1', 'AS1', 'DE'), 1_000)).toBeNull();
    rules.keep({ ...ip, expiredAt: new Date(1), revision: 2 });
    expect(rules.find(h, 1_000)?.id).toBe(narrow.id);
  });

  it('never lets an older version of a rule undo a newer one', () => {
    const rules = new WorkspaceRules();
    const r = rule('ip', '192.0.2.1');
    rules.keep({ ...r, expiredAt: new Date(1), revision: 2 });
    rules.keep(r); // the create, read after the expiry by a slow follow
    expect(rules.find(hierarchy('192.0.2.1'), 0)).toBeNull();
    expect(rules.size).toBe(0);
  });

  it('finds IPv6 blocks by longest prefix', () => {
    const rules = new WorkspaceRules();
    const wide = rule('cidr', '2001:db8::/32');
    const narrow = rule('cidr', '2001:db8:5::/48');
    rules.keep(wide);
    rules.keep(narrow);
    expect(rules.find(hierarchy('2001:db8:5::1'), 0)?.id).toBe(narrow.id);
    expect(rules.find(hierarchy('2001:db8:6::1'), 0)?.id).toBe(wide.id);
    expect(rules.find(hierarchy('2001:db9::1', 'AS1', 'DE'), 0)).toBeNull();
  });

  it('holds 10,000 rules and still answers from a few map reads', () => {
    const rules = new WorkspaceRules();
    for (let i = 0; i < 10_000; i++) {
      const a = (i >> 8) & 255,
        b = i & 255;
      // half addresses, half blocks over eight prefix lengths (each length one more map to try per lookup)
      rules.keep(i % 2 ? rule('ip', `10.${a}.${b}.1`) : rule('cidr', `11.${a}.${b}.0/${24 + (i % 8)}`));
    }
    expect(rules.size).toBe(10_000);
    expect(rules.find(hierarchy('10.0.3.1'), 0)?.target).toBe('10.0.3.1');
    expect(rules.find(hierarchy('11.0.4.0'), 0)?.target).toBe('11.0.4.0/28');
    const h = hierarchy('12.0.0.1', 'AS1', 'DE'); // the worst case: every map tried, none holds it
    const started = performance.now();
    for (let i = 0; i < 10_000; i++) rules.find(h, 0);
    // generous: a linear scan of 10,000 rules per lookup would take seconds here
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('an applied rule', () => {
  const score = (overall: number, level: IpScore['overallRiskLevel']): IpScore => ({
    overallScore: overall,
    overallRiskLevel: level,
    matchedCount: 1,
    dimensions: [],
    driver: 'ip',
    layers: explainLayers({ publishedScore: overall, overall, own: null }),
    confidence: 39,
  });

  it('allow pulls into minimal, deny lifts into critical, adjust adds points clamped to 0-100', () => {
    expect(overriddenScore(70, { action: 'allow', points: 0 })).toBe(9);
    expect(overriddenScore(3, { action: 'allow', points: 0 })).toBe(3);
    expect(overriddenScore(20, { action: 'deny', points: 0 })).toBe(85);
    expect(overriddenScore(95, { action: 'deny', points: 0 })).toBe(95);
    expect(overriddenScore(90, { action: 'adjust', points: 30 })).toBe(100);
    expect(overriddenScore(10, { action: 'adjust', points: -30 })).toBe(0);
    expect(overriddenScore(20, { action: 'adjust', points: 15 })).toBe(35);
  });

  it('changes only the overall score and level, and says so', () => {
    const before = score(70, 'high');
    const { score: after, override } = applyOverride(
      before,
      rule('ip', '192.0.2.1', { action: 'allow', reason: 'our office' }),
    );
    expect(after).toEqual({ ...before, overallScore: 9, overallRiskLevel: 'minimal' });
    expect(after.dimensions).toBe(before.dimensions);
    expect(override).toMatchObject({ action: 'allow', evidenceScore: 70, evidenceLevel: 'high' });
    expect(override!.explanation).toContain('from 70 (high) to 9 (minimal)');
    expect(applyOverride(before, null)).toEqual({ score: before, override: null });
  });
});
