import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { backendName, freshEnvironment, type TestEnv } from '../helpers/backend.ts';
import { startServerProcess, post, type ServerProcess } from '../reliability/faults-helpers.ts';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { createLogger } from '../../src/platform/log.ts';

/**
 * DATA_DIR holds the embedded database (reports, password hashes), the counter journal and the generated
 * API-key pepper: no other local user may list, read or write any of it. The data directory is placed in a
 * world-traversable parent, as `./data` in a checkout is, so nothing but the service's own modes protect it.
 */
const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/risk-api.mjs');
const isRoot = process.getuid?.() === 0;

/** Every entry under `dir` (itself included) whose permission bits give anything to group or others. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const visit = (p: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0) found.push(`${(st.mode & 0o777).toString(8)} ${path.relative(dir, p) || '.'}`);
    if (st.isDirectory()) for (const name of readdirSync(p)) visit(path.join(p, name));
  };
  visit(dir);
  return found;
}

function allFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

describe(`DATA_DIR is private to the service's user (${backendName})`, () => {
  let env: TestEnv;
  let dataDir: string;
  const cli = async (...args: string[]) =>
    (
      await run(process.execPath, [BIN, ...args], {
        env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env.env },
        timeout: 240_000, // a first use creates the embedded database: minutes on a busy 2-core machine
      })
    ).stdout;

  beforeAll(async () => {
    env = await freshEnvironment();
    chmodSync(env.dataDir, 0o755); // the parent: any local user may traverse it
    dataDir = path.join(env.dataDir, 'data');
    env.env.DATA_DIR = dataDir;
  });
  afterAll(() => env?.cleanup());

  it('is created owner-only by the CLI on first use', async () => {
    await cli('keys', 'create', '--workspace', 'perm-ws', '--name', 'first', '--json');
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(openToOthers(dataDir)).toEqual([]);
  });

  describe('after a server start, writes and a publish', () => {
    let server: ServerProcess;
    beforeAll(async () => {
      server = await startServerProcess(env.env);
      const { secret } = JSON.parse(
        await cli('keys', 'create', '--workspace', 'perm-ws', '--name', 'second', '--json'),
      );
      for (const ip of ['192.0.2.1', '192.0.2.2', '198.51.100.7']) {
        expect(
          (await post(server.url, '/risk_api/rate/', { ip, rating: -1, note: 'private' }, { 'x-api-key': secret }))
            .status,
        ).toBe(201);
      }
      await cli('publish', '--json');
    });
    afterAll(async () => {
      server?.child.kill('SIGTERM');
      await server?.exited;
    });

    it('every directory is 0700 and every file 0600 or tighter', () => {
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(openToOthers(dataDir)).toEqual([]);
      expect(allFiles(dataDir).length).toBeGreaterThan(0);
    });

    // Root can become another user; without root the modes above are the whole check.
    it.skipIf(!isRoot)('another local user can neither list, read nor write any of it', () => {
      const files = allFiles(dataDir);
      const probe = spawnSync(
        'runuser',
        [
          '-u',
          'nobody',
          '--',
          'sh',
          '-c',
          `
        dir="$1"; shift
        ls -- "$dir" >/dev/null 2>&1 && echo "listed $dir"
        touch -- "$dir/planted" 2>/dev/null && echo "created $dir/planted"
        for f; do
          cat -- "$f" >/dev/null 2>&1 && echo "read $f"
          [ -w "$f" ] && echo "writable $f"
        done
        exit 0`,
          'probe',
          dataDir,
          ...files,
        ],
        { encoding: 'utf8' },
      );
      expect(probe.status, probe.stderr).toBe(0);
      expect(probe.stdout.split('\n').filter(Boolean)).toEqual([]);
      // The probe itself works: the same user can read a file that is open to it.
      const open = path.join(env.dataDir, 'open-to-all');
      writeFileSync(open, 'x', { mode: 0o644 });
      chmodSync(open, 0o644);
      expect(spawnSync('runuser', ['-u', 'nobody', '--', 'cat', open], { encoding: 'utf8' }).stdout).toBe('x');
    });
  });
});

describe(`an existing DATA_DIR open to other users (${backendName})`, () => {
  it('is tightened at start, with a warning, without following links out of it', async () => {
    const env = await freshEnvironment();
    try {
      const dataDir = path.join(env.dataDir, 'data');
      mkdirSync(path.join(dataDir, 'secrets'), { recursive: true });
      chmodSync(dataDir, 0o777);
      chmodSync(path.join(dataDir, 'secrets'), 0o755);
      writeFileSync(path.join(dataDir, 'secrets', 'api-key-pepper'), 'a'.repeat(64));
      chmodSync(path.join(dataDir, 'secrets', 'api-key-pepper'), 0o666);
      const outside = path.join(env.dataDir, 'outside.txt');
      writeFileSync(outside, 'not ours');
      chmodSync(outside, 0o644);
      symlinkSync(outside, path.join(dataDir, 'link-out'));

      const logs: string[] = [];
      const app = await createApp(loadConfig({ ...env.env, DATA_DIR: dataDir }), {
        log: createLogger('warn', (l) => logs.push(l)),
      });
      await app.close();

      expect(openToOthers(dataDir)).toEqual([]);
      expect(statSync(outside).mode & 0o777).toBe(0o644);
      const warning = logs.map((l) => JSON.parse(l)).find((l) => l.level === 'warn' && /DATA_DIR/.test(l.msg));
      expect(warning).toMatchObject({ dir: dataDir, tightened: 3 });
    } finally {
      await env.cleanup();
    }
  });
});
