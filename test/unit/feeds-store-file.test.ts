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
    writeFileSync(file, lines.join('\r\n') + '\r\n');
    const progress: Array<[number, number, number]> = [];
    const r = await readFeedFile(file, 'plain', { onProgress: (l, b, total) => progress.push([l, b, total]), progressEvery: 1000 });
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
    expect(r.entries).toEqual([{ cidr: '1.2.3.4/32', line: 2 }, { cidr: '5.6.7.0/24', line: 3 }]);
    expect(r.fatal).toBe(false);
  });

  it('rejects a missing file', async () => {
    await expect(readFeedFile(path.join(dir, 'nope.txt'), 'plain')).rejects.toThrow(/ENOENT/);
  });
});

describe('progress bar', () => {
  it('renders the fraction of bytes read and the line count within the width', () => {
    const bar = renderProgressBar({ linesRead: 12345, bytesRead: 50, totalBytes: 100 }, 60);
    expect(bar).toMatch(/^\[#+-+\]  50%  12,345 lines$/);
    expect(bar.length).toBeLessThanOrEqual(60);
    expect(renderProgressBar({ linesRead: 1, bytesRead: 0, totalBytes: 0 }, 40)).toContain('100%');
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
    expect(out[0]).toMatch(/^\r\[.*50%  6,000 lines$/);
    w.done();
    expect(out.slice(-2)[0]).toMatch(/60%  7,000 lines$/);
    expect(out[out.length - 1]).toBe('\n');

    const piped: string[] = [];
    const p = createProgressWriter({ isTTY: false, write: (s: string) => piped.push(s) });
    p.update(100_000, 1, 2);
    p.done();
    expect(piped, 'nothing when stderr is not a terminal').toEqual([]);
  });
});
