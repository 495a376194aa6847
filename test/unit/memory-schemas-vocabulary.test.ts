import { describe, expect, it } from 'vitest';
import {
  effectiveVisibility,
  EVENT_TYPES,
  EVENT_TYPE_CODES,
  REPORT_STATUSES,
  ROLES,
  SEVERITIES,
  SUBJECT_KINDS,
  VISIBILITIES,
  OUTCOMES,
  OUTCOME_CODES,
  outcomeDirection,
  RATINGS,
  RATING_VALUES,
  REPORT_STATUS_CODES,
  ROLE_CODES,
  SEVERITY_CODES,
  SHAREABLE_POLICIES,
  SHARE_POLICIES,
  SHARE_POLICY_CODES,
  SUBJECT_KIND_CODES,
  VISIBILITY_CODES,
} from '../../src/domain/memory/vocabulary.ts';

describe('vocabularies', () => {
  it('hold exactly the decided codes, in documentation order', () => {
    expect(RATINGS.map((r) => [r.value, r.code])).toEqual([
      [1, 'good'],
      [0, 'neutral'],
      [-1, 'bad'],
    ]);
    expect(RATING_VALUES).toEqual([1, 0, -1]);
    expect(SUBJECT_KIND_CODES).toEqual([
      'ipaddress',
      'cidr',
      'asn',
      'domain',
      'url',
      'email',
      'phone',
      'organization',
      'transaction',
      'account',
    ]);
    expect(SEVERITY_CODES).toEqual(['info', 'low', 'medium', 'high', 'critical']);
    expect(ROLE_CODES).toEqual([
      'source_ip',
      'destination_ip',
      'hosting',
      'domain',
      'url',
      'email',
      'phone',
      'account',
      'payment',
      'organization',
      'linked',
    ]);
    expect(SHARE_POLICY_CODES).toEqual([
      'clear_share',
      'green_share',
      'amber_share',
      'amber_strict_share',
      'red_share',
    ]);
    expect(SHARE_POLICIES.map((p) => p.tlp)).toEqual([
      'TLP:CLEAR',
      'TLP:GREEN',
      'TLP:AMBER',
      'TLP:AMBER+STRICT',
      'TLP:RED',
    ]);
    expect(SHAREABLE_POLICIES).toEqual(['clear_share', 'green_share']);
    expect(VISIBILITY_CODES).toEqual(['workspace', 'community']);
    expect(EVENT_TYPE_CODES).toEqual(['observation', 'outcome', 'alert']);
    expect(REPORT_STATUS_CODES).toEqual(['', 'open', 'confirmed', 'disputed', 'resolved']);
  });

  it('mark which outcomes raise risk and which lower it', () => {
    const benign = OUTCOMES.filter((o) => o.direction === 'benign').map((o) => o.code);
    expect(benign).toEqual(['legitimate', 'false_positive']);
    expect(OUTCOME_CODES.filter((c) => outcomeDirection(c) === 'risk')).toEqual([
      'fraud_confirmed',
      'chargeback',
      'account_takeover',
      'credential_stuffing',
      'fraud_watch',
      'spam',
      'scraping',
      'bot_activity',
      'abuse_other',
    ]);
  });

  it('give every entry a one-line meaning for the docs', () => {
    const all = [
      RATINGS,
      SUBJECT_KINDS,
      OUTCOMES,
      SEVERITIES,
      ROLES,
      SHARE_POLICIES,
      VISIBILITIES,
      EVENT_TYPES,
      REPORT_STATUSES,
    ].flat();
    for (const entry of all) expect(entry.meaning, JSON.stringify(entry)).toMatch(/^[A-Z].{5,}\.$/);
  });
});

describe('effectiveVisibility', () => {
  it('keeps workspace visibility under every policy, with no notice', () => {
    for (const policy of SHARE_POLICY_CODES) {
      expect(effectiveVisibility('workspace', policy)).toEqual({ effective: 'workspace', notice: '' });
    }
  });

  it.each(['clear_share', 'green_share'] as const)('honours community under %s', (policy) => {
    expect(effectiveVisibility('community', policy)).toEqual({ effective: 'community', notice: '' });
  });

  it.each(['amber_share', 'amber_strict_share', 'red_share'] as const)(
    'downgrades community to workspace under %s and says why',
    (policy) => {
      const result = effectiveVisibility('community', policy);
      expect(result.effective).toBe('workspace');
      expect(result.notice).toContain(`share policy ${policy}`);
      expect(result.notice).toContain('clear_share or green_share');
    },
  );

  it('names the TLP label in the notice', () => {
    expect(effectiveVisibility('community', 'amber_strict_share').notice).toContain('(TLP:AMBER+STRICT)');
  });
});
