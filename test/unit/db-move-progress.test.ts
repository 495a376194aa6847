import { describe, expect, it } from 'vitest';
import { moveProgress } from '../../src/cli/db-move.ts';

/** A stderr stand-in that keeps what is written. */
function stream(isTTY: boolean) {
  const written: string[] = [];
  return {
    written,
    stream: { isTTY, columns: 100, write: (t: string) => written.push(t) } as unknown as NodeJS.WriteStream,
  };
}

describe('db move progress display', () => {
  it('off a terminal: a line per tenth of a large table, per phase, with the time since the move began', () => {
    const out = stream(false);
    let now = 0;
    const progress = moveProgress(out.stream, () => now);
    for (const phase of ['copying', 'verifying'] as const) {
      for (let done = 0; done <= 1_000_000; done += 5_000) {
        now += 10;
        progress(phase, 'PublishedSummary', done, 1_000_000);
      }
    }
    const lines = out.written.join('').trim().split('\n');
    expect(lines).toHaveLength(22); // 0%, 10%, …, 100% of each phase
    expect(lines[0]).toBe('copying PublishedSummary: 0% (0 / 1,000,000 rows), 0 s');
    expect(lines[10]).toBe('copying PublishedSummary: 100% (1,000,000 / 1,000,000 rows), 2 s');
    expect(lines[21]).toBe('verifying PublishedSummary: 100% (1,000,000 / 1,000,000 rows), 4 s');
  });

  it('off a terminal: nothing for a small table (the table report after the move names it)', () => {
    const out = stream(false);
    const progress = moveProgress(out.stream, () => 0);
    progress('copying', 'Tier', 0, 5);
    progress('copying', 'Tier', 5, 5);
    expect(out.written).toEqual([]);
  });

  it('on a terminal: one line redrawn in place, ended when the table is done', () => {
    const out = stream(true);
    let now = 0;
    const progress = moveProgress(out.stream, () => now);
    progress('copying', 'Report', 0, 400);
    now += 500;
    progress('copying', 'Report', 200, 400);
    now += 50; // within 100 ms of the last draw: not redrawn
    progress('copying', 'Report', 300, 400);
    now += 50;
    progress('copying', 'Report', 400, 400);
    expect(out.written.filter((t) => t.startsWith('\r')).map((t) => t.trim())).toEqual([
      'copying Report: 0% (0 / 400 rows), 0 s',
      'copying Report: 50% (200 / 400 rows), 1 s',
      'copying Report: 100% (400 / 400 rows), 1 s',
    ]);
    expect(out.written.at(-1)).toBe('\n');
  });
});
