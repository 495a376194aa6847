/** Reading a feed file from disk line by line, with progress, and the terminal progress bar. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readFeedFile } from '../../src/domain/feeds/read-file.ts';
import { createProgressWriter, renderProgressBar } from '../../src/domain/feeds/progress.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'feed-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readFeedFile', () => {
  it('parses a plain file with CRLF endings and reports progress up to the whole file', async () => {
    const file = path.join(dir, 'list.txt');
    const lines = Array.from({ length: 4500 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
    lines.push('garbage here');
    writeFileSync(file, `${lines.join('\r\n')}\r\n`);
    const progress: Array<[number, number, number]> = [];
    const r = await readFeedFile(file, 'plain', {
      onProgress: (l, b, total) => progress.push([l, b, total]),
      progressEvery: 1000,
    });
    expect(r.entries.length).toBe(4500);
    expect(r.entries[0]).toEqual({ cidr: '10.0.0.0/32', line: 1 });
    expect(r.errors).toEqual([{ line: 4501, text: 'garbage here', reason: expect.any(String) }]);
    expect(r.lines).toBe(4501);
    expect(progress.map((p) => p[0])).toEqual([1000, 2000, 3000, 4000, 4501]);
    const last = progress[progress.length - 1]!;
    expect(last[1], 'all bytes read at the end').toBe(last[2]);
  });

  it('parses CSV with a chosen column', async () => {
    const file = path.join(dir, 'list.csv');
    writeFileSync(file, 'when,src\n2026-01-01,"1.2.3.4"\n2026-01-02,5.6.7.0/24\n');
    const r = await readFeedFile(file, 'csv', { column: 'src' });
    expect(r.entries).toEqual([
      { cidr: '1.2.3.4/32', line: 2 },
      { cidr: '5.6.7.0/24', line: 3 },
    ]);
    expect(r.fatal).toBe(false);
  });

  it('rejects a missing file', async () => {
    await expect(readFeedFile(path.join(dir, 'nope.txt'), 'plain')).rejects.toThrow(/ENOENT/);
  });
});

describe('progress bar', () => {
  it('renders the fraction of bytes read and the line count within the width', () => {
    const bar = renderProgressBar({ linesRead: 12345, bytesRead: 50, totalBytes: 100 }, 60);
    expect(bar).toMatch(/^\[#+-+\] {2}50% {2}12,345 lines$/);
    expect(bar.length).toBeLessThanOrEqual(60);
  });

  it('draws only on a TTY, only past minLines, and ends the line when done', () => {
    let t = 0;
    const out: string[] = [];
    const tty = { isTTY: true, columns: 80, write: (s: string) => out.push(s) };
    const w = createProgressWriter(tty, { clock: () => t });
    w.update(4000, 10, 100);
    expect(out, 'short so far: nothing drawn').toEqual([]);
    w.update(6000, 50, 100);
    t += 10;
    w.update(7000, 60, 100);
    expect(out.length, 'throttled to one draw per 100 ms').toBe(1);
    expect(out[0]).toMatch(/^\r\[.*50% {2}6,000 lines$/);
    w.done();
    expect(out.slice(-2)[0]).toMatch(/60% {2}7,000 lines$/);
    expect(out[out.length - 1]).toBe('\n');
  });

  it('writes whole lines, one per tenth of the file, when stderr is not a terminal', () => {
    const piped: string[] = [];
    const p = createProgressWriter(
      { isTTY: false, write: (s: string) => piped.push(s) },
      { label: 'reading list.txt' },
    );
    p.update(4000, 10, 100);
    expect(piped, 'short so far: nothing written').toEqual([]);
    for (let lines = 6000, bytes = 15; bytes <= 100; lines += 1000, bytes += 5) p.update(lines, bytes, 100);
    p.update(30_000, 100, 100); // every byte read, lines still being parsed
    p.done();
    expect(piped.join('')).not.toContain('\r');
    expect(piped.every((l) => l.endsWith('\n'))).toBe(true);
    expect(piped.map((l) => l.trimEnd())).toEqual([
      'reading list.txt: 15% (6,000 lines)',
      'reading list.txt: 20% (7,000 lines)',
      'reading list.txt: 30% (9,000 lines)',
      'reading list.txt: 40% (11,000 lines)',
      'reading list.txt: 50% (13,000 lines)',
      'reading list.txt: 60% (15,000 lines)',
      'reading list.txt: 70% (17,000 lines)',
      'reading list.txt: 80% (19,000 lines)',
      'reading list.txt: 90% (21,000 lines)',
      'reading list.txt: 100% (23,000 lines)',
      'reading list.txt: 100% (30,000 lines)',
    ]);
  });

  it('counts lines when the size is unknown (a pipe), and writes nothing for a short file', () => {
    const piped: string[] = [];
    const p = createProgressWriter({ isTTY: false, write: (s: string) => piped.push(s) });
    for (let lines = 50_000; lines <= 250_000; lines += 50_000) p.update(lines, lines * 10, 0);
    p.done();
    expect(piped.map((l) => l.trimEnd())).toEqual([
      'reading: 50,000 lines',
      'reading: 100,000 lines',
      'reading: 200,000 lines',
      'reading: 250,000 lines',
    ]);
    const short: string[] = [];
    const q = createProgressWriter({ isTTY: false, write: (s: string) => short.push(s) });
    q.update(4000, 1, 2);
    q.done();
    expect(short).toEqual([]);
    expect(renderProgressBar({ linesRead: 7, bytesRead: 70, totalBytes: 0 })).toBe('7 lines read');
  });
});
