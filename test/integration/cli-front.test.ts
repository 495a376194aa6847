import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gitCommit } from '../../src/platform/build-info.ts';

/**
 * The CLI's front: --version names the version and commit, and a bad option is refused before the command reads its
 * input. The input here is a named pipe nobody writes to: a CLI that opened it would wait for ever (the test would
 * time out), so an exit 2 shows the file was never read.
 */
const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'risk-api.mjs');
const cli = (...args: string[]) =>
  run(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH! }, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );

describe('risk-api front', () => {
  let dir: string;
  let fifo: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'risk-api-cli-'));
    fifo = path.join(dir, 'feed.txt');
    execFileSync('mkfifo', [fifo]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('--version and version name the package version and the commit', async () => {
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default;
    const commit = gitCommit(ROOT) ?? 'unknown';
    expect((await cli('--version')).stdout.trim()).toBe(`risk-api ${version} (commit ${commit})`);
    expect(JSON.parse((await cli('version', '--json')).stdout)).toEqual({ version, commit });
  });

  it('feeds import --weight 7 is refused (exit 2) without reading the file', async () => {
    const out = await cli('feeds', 'import', fifo, '--name', 'big', '--weight', '7');
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^error: --weight "7": A feed weight is a number from 0 to 1\./);
    expect(out.stderr).not.toContain('reading');
  });
});
