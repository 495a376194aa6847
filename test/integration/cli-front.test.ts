import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gitCommit } from '../../src/platform/build-info.ts';
// @ts-expect-error: a plain module of the bin folder, run before any TypeScript loader (no declarations)
import { currentBundle } from '../../bin/cli-bundle.mjs';

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

describe('the CLI bundle (bin/cli-bundle.mjs)', { timeout: 120_000 }, () => {
  const bundleOf = currentBundle as (root: URL) => URL | null;

  it('is what the bin runs after the build, and answers --help as the sources do', async () => {
    expect(bundleOf(pathToFileURL(`${ROOT}/`))?.pathname).toBe(path.join(ROOT, 'dist/server/cli.mjs'));
    const fromSources = await run(
      process.execPath,
      ['--import', 'tsx/esm', path.join(ROOT, 'src/cli/entry.ts'), '--help'],
      {
        env: { PATH: process.env.PATH! },
        timeout: 60_000,
      },
    );
    expect((await cli('--help')).stdout).toBe(fromSources.stdout);
  });

  it('is run only while every source it was built from is unchanged, and always where no source is', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'risk-api-cli-bundle-'));
    try {
      const url = pathToFileURL(`${root}/`);
      const source = path.join(root, 'src/cli/entry.ts');
      mkdirSync(path.dirname(source), { recursive: true });
      mkdirSync(path.join(root, 'dist/server'), { recursive: true });
      writeFileSync(source, 'export {};\n');
      writeFileSync(path.join(root, 'dist/server/cli.mjs'), '');
      expect(bundleOf(url), 'no list of sources: the sources decide').toBeNull();
      const s = statSync(source);
      writeFileSync(
        path.join(root, 'dist/server/cli-sources.json'),
        JSON.stringify([['src/cli/entry.ts', s.size, s.mtimeMs]]),
      );
      expect(bundleOf(url)?.pathname).toBe(path.join(root, 'dist/server/cli.mjs'));
      writeFileSync(source, 'export {}; \n'); // edited after the build
      expect(bundleOf(url)).toBeNull();
      writeFileSync(source, 'export {};\n');
      utimesSync(source, s.atime, new Date(s.mtimeMs - 60_000)); // same size, older time: another file all the same
      expect(bundleOf(url)).toBeNull();
      rmSync(path.join(root, 'src'), { recursive: true });
      expect(bundleOf(url), 'no sources (the runtime image)').not.toBeNull();
      rmSync(path.join(root, 'dist/server/cli.mjs'));
      expect(bundleOf(url)).toBeNull();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
