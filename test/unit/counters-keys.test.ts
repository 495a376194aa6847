import { describe, expect, it } from 'vitest';
import {
  assertWindowStarts,
  burstKey,
  hashTag,
  nextUtcMidnightMs,
  quotaKey,
  utcDay,
  windowStart,
  WINDOW_MS,
} from '../../src/platform/counters/keys.ts';

describe('counter keys', () => {
  it('formats the UTC day as YYYYMMDD, whatever the local time zone', () => {
    expect(utcDay(Date.UTC(2026, 0, 5, 23, 59, 59, 999))).toBe('20260105');
    expect(utcDay(Date.UTC(2026, 11, 31, 0, 0, 0))).toBe('20261231');
  });

  it('resets the quota at the next UTC midnight, strictly after now', () => {
    expect(nextUtcMidnightMs(Date.UTC(2026, 5, 17, 13, 45))).toBe(Date.UTC(2026, 5, 18));
    expect(nextUtcMidnightMs(Date.UTC(2026, 5, 17))).toBe(Date.UTC(2026, 5, 18));
    expect(nextUtcMidnightMs(Date.UTC(2026, 11, 31, 23, 59, 59, 999))).toBe(Date.UTC(2027, 0, 1));
  });

  it('aligns community windows to 10-minute UTC boundaries', () => {
    expect(WINDOW_MS).toBe(600_000);
    expect(windowStart(Date.UTC(2026, 5, 17, 13, 49, 59, 999))).toBe(Date.UTC(2026, 5, 17, 13, 40));
    expect(windowStart(Date.UTC(2026, 5, 17, 13, 50))).toBe(Date.UTC(2026, 5, 17, 13, 50));
  });

  it('builds quota and burst keys whose hash tag names the workspace / API key', () => {
    const q = quotaKey('42', 'api_score', '20260617');
    expect(q).toBe('rq:{ws:42}:api_score:20260617');
    expect(hashTag(q)).toBe('ws:42');
    // the API quota and the direct-report quota are separate counters of the same workspace (same slot)
    const d = quotaKey('42', 'direct_report', '20260617');
    expect(d).not.toBe(q);
    expect(hashTag(d)).toBe(hashTag(q));
    // the burst counter of a key shares its workspace's slot, so one script checks burst and quota together
    expect(hashTag(burstKey('42', 'rk_ab12'))).toBe(hashTag(q));
  });

  it('reads hash tags the way Redis Cluster does', () => {
    expect(hashTag('plain')).toBe('plain');
    expect(hashTag('a{}b')).toBe('a{}b'); // empty tag: the whole key is hashed
    expect(hashTag('p:cs:{ip:1.2.3.4}:h:0')).toBe('ip:1.2.3.4');
  });

  it('refuses misaligned window starts instead of silently reading zeros', () => {
    expect(() => assertWindowStarts([0, WINDOW_MS, 5 * WINDOW_MS])).not.toThrow();
    expect(() => assertWindowStarts([WINDOW_MS + 1])).toThrow(RangeError);
    expect(() => assertWindowStarts([Number.NaN])).toThrow(RangeError);
  });
});
