/** The pure parts of the community signal: the spike rule, label precedence, window starts and labels. */
import { describe, expect, it } from 'vitest';
import { WINDOW_MS } from '../../src/platform/counters/keys.ts';
import {
  classify,
  COMMUNITY_LABELS,
  MIN_SPIKE_HITS,
  spikeFlags,
  SPIKE_FACTOR,
} from '../../src/domain/community/rules.ts';
import { completeWindowStarts, RECENT_WINDOWS, WEEK_WINDOWS, windowLabel } from '../../src/domain/community/windows.ts';
import { lookupEntities } from '../../src/domain/community/signal.ts';
import { hierarchy } from './community-fixtures.ts';

const week = (fill: number, last: number) => [...Array<number>(WEEK_WINDOWS - 1).fill(fill), last];
const spikes = (hits: number[]) => spikeFlags(hits).filter(Boolean).length;

describe('spike rule', () => {
  it('uses the documented numbers', () => {
    expect({ MIN_SPIKE_HITS, SPIKE_FACTOR, WEEK_WINDOWS, RECENT_WINDOWS }).toEqual({
      MIN_SPIKE_HITS: 20,
      SPIKE_FACTOR: 4,
      WEEK_WINDOWS: 1008,
      RECENT_WINDOWS: 6,
    });
  });

  it('needs the absolute floor of 20 hits when the entity has no baseline', () => {
    expect(spikeFlags(week(0, 19)).at(-1)).toBe(false);
    expect(spikeFlags(week(0, 20)).at(-1)).toBe(true);
    expect(spikes(week(0, 0))).toBe(0);
  });

  it('needs 4 × the mean of the other windows, excluding the window itself, with no rounding at the border', () => {
    // baseline exactly 10 per window: 40 is a spike, 39 is not
    expect(spikeFlags(week(10, 40)).at(-1)).toBe(true);
    expect(spikeFlags(week(10, 39)).at(-1)).toBe(false);
    // one extra hit somewhere lifts the baseline just above 10, so 40 no longer reaches 4 × baseline
    const lifted = week(10, 40);
    lifted[0] = 11;
    expect(spikeFlags(lifted).at(-1)).toBe(false);
  });

  it('counts every spiking window of the week', () => {
    const hits = week(0, 0);
    hits[3] = 30;
    hits[500] = 25;
    hits[900] = 19;
    expect(spikes(hits)).toBe(2);
  });
});

describe('state labels', () => {
  it('lists the labels in precedence order with their meanings', () => {
    expect(COMMUNITY_LABELS.map((l) => l.label)).toEqual(['spiking', 'converging', 'active', 'quiet']);
    for (const l of COMMUNITY_LABELS) expect(l.meaning.length, l.label).toBeGreaterThan(20);
  });

  it('applies spiking > converging > active > quiet', () => {
    expect(classify({ hasSpike: true, recentHits: 60, requesters60m: 9 })).toBe('spiking');
    expect(classify({ hasSpike: false, recentHits: 3, requesters60m: 3 })).toBe('converging');
    expect(classify({ hasSpike: false, recentHits: 9, requesters60m: 2 })).toBe('active');
    expect(classify({ hasSpike: false, recentHits: 0, requesters60m: 0 })).toBe('quiet');
  });
});

describe('windows', () => {
  it('lists complete windows only, oldest first, ending just before the window containing now', () => {
    const t = Date.UTC(2026, 0, 1, 0, 4, 59, 999); // inside 00:00–00:10
    const starts = completeWindowStarts(t, 3);
    expect(starts.map(windowLabel)).toEqual(['23:30', '23:40', '23:50']);
    expect(starts[2]! + WINDOW_MS).toBe(Date.UTC(2026, 0, 1));
    // at the exact boundary the window just ended is complete
    expect(completeWindowStarts(Date.UTC(2026, 0, 1, 0, 10), 1).map(windowLabel)).toEqual(['00:00']);
  });
});

describe('lookupEntities', () => {
  it('names the IP, its subnet and its AS', () => {
    expect(lookupEntities(hierarchy('8.8.8.8', '8.8.8.0/24', 'AS15169'))).toEqual([
      'ip:8.8.8.8',
      'subnet:8.8.8.0/24',
      'asn:AS15169',
    ]);
  });

  it('names only what was matched (a special-purpose address has just its IP)', () => {
    expect(lookupEntities(hierarchy('10.0.0.1', null, null))).toEqual(['ip:10.0.0.1']);
    expect(lookupEntities(hierarchy('2001:db8::1', '2001:db8::/48', null))).toEqual([
      'ip:2001:db8::1',
      'subnet:2001:db8::/48',
    ]);
  });
});
