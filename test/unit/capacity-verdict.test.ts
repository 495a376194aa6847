import { describe, expect, it } from 'vitest';
import { verdict } from '../../bench/capacity-verdict.ts';

/** bench:capacity's check of its prediction: valid only when every window had the machine (nearly) to itself. */
describe('capacity run verdict', () => {
  const quiet = [
    { label: 'score', workers: 1, otherPct: 2 },
    { label: 'score', workers: 2, otherPct: 9.9 },
  ];

  it('stands when other work stayed under the limit in every window', () => {
    expect(verdict(quiet, 10)).toMatchObject({ valid: true, text: expect.stringContaining('the check stands') });
  });

  it('refuses a run where one window shared the machine, naming it', () => {
    const loaded = verdict([...quiet, { label: 'rate', workers: 1, otherPct: 64 }], 10);
    expect(loaded.valid).toBe(false);
    expect(loaded.text).toContain('Not a valid check');
    expect(loaded.text).toContain('rate (WORKERS=1, 64%)');
    expect(loaded.text).not.toContain('score');
  });

  it('refuses a window whose other work was not measured', () => {
    expect(verdict([{ label: 'score', workers: 2, otherPct: Number.NaN }], 10).valid).toBe(false);
  });
});
