import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { freshEnvironment, backendName, type TestEnv } from '../helpers/backend.ts';
import { loadConfig } from '../../src/config.ts';
import { createApp, type App } from '../../src/app.ts';
import { createLogger } from '../../src/platform/log.ts';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/risk-api.mjs');

describe(`risk-api CLI (${backendName})`, () => {
  let env: TestEnv;
  const cli = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env.env },
      timeout: 60_000,
    });
    return stdout;
  };
  beforeAll(async () => {
    env = await freshEnvironment({ KEY_CACHE_TTL_MS: '300' });
  });
  afterAll(() => env?.cleanup());

  let first: { workspace: string; name: string; prefix: string; secret: string };

  it('creates a key while no server runs and prints the secret once, as JSON', async () => {
    first = JSON.parse(
      await cli('keys', 'create', '--workspace', 'cli-ws', '--name', 'pipeline', '--tier', 'developer', '--json'),
    );
    expect(first).toEqual({
      workspace: 'cli-ws',
      name: 'pipeline',
      prefix: expect.stringMatching(/^rk_[A-Za-z0-9]{8}$/),
      secret: expect.any(String),
    });
    expect(first.secret.startsWith(`${first.prefix}_`)).toBe(true);
  });

  it('lists keys without their secrets', async () => {
    const out = await cli('keys', 'list', '--json');
    const keys = JSON.parse(out);
    expect(keys).toEqual([
      expect.objectContaining({
        workspace: 'cli-ws',
        name: 'pipeline',
        prefix: first.prefix,
        status: 'active',
        last_used_at: null,
      }),
    ]);
    expect(out).not.toContain(first.secret.slice(first.prefix.length + 1));
  });

  describe('while the server runs', () => {
    let app: App;
    let url: string;
    beforeAll(async () => {
      app = await createApp(loadConfig(env.env), { log: createLogger('silent') });
      url = await app.start(0, '127.0.0.1');
    });
    afterAll(() => app?.close());

    const rate = (secret: string) =>
      fetch(`${url}/risk_api/rate/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': secret },
        body: JSON.stringify({ ip: '192.0.2.1', rating: 0 }),
      });

    it('creates a key the server accepts at once, and sets a tier', async () => {
      const second = JSON.parse(await cli('keys', 'create', '--workspace', 'cli-ws', '--name', 'second', '--json'));
      expect((await rate(second.secret)).status).toBe(201);
      expect(JSON.parse(await cli('workspaces', 'set-tier', 'cli-ws', 'startup', '--json'))).toEqual({
        workspace: 'cli-ws',
        tier: 'startup',
      });
    });

    it('revokes a key so that the server refuses it within the cache bound', async () => {
      expect((await rate(first.secret)).status).toBe(201);
      const revoked = JSON.parse(await cli('keys', 'revoke', first.prefix, '--json'));
      expect(revoked).toMatchObject({ prefix: first.prefix, status: 'revoked', revoked_at: expect.any(String) });
      let status = 0;
      for (let i = 0; i < 40 && status !== 401; i++) {
        status = (await rate(first.secret)).status;
        if (status !== 401) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(401);
    });

    it('refuses an unknown tier', async () => {
      const error = await cli('workspaces', 'set-tier', 'cli-ws', 'platinum').catch((e) => e);
      expect(error.code).toBe(1);
      expect(error.stderr).toContain('platinum');
    });
  });

  describe('command-line mistakes', () => {
    /** stdout, stderr and the exit code of a CLI run that is expected to fail. */
    const failing = async (...args: string[]) => {
      const e = await cli(...args).then(
        () => {
          throw new Error(`risk-api ${args.join(' ')} succeeded`);
        },
        (err) => err as { code: number; stdout: string; stderr: string },
      );
      return {
        code: e.code,
        stdout: e.stdout,
        stderr: e.stderr.split('\n').filter((l) => l && !/ExperimentalWarning|--trace-warnings/.test(l)),
      };
    };

    it('names an unknown command, exit 2', async () => {
      const unknown = await failing('frobnicate');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr[0]).toBe('error: unknown command "frobnicate"');
      const sub = await failing('keys', 'frob');
      expect(sub.code).toBe(2);
      expect(sub.stderr[0]).toBe('error: unknown command "keys frob"; the keys commands are: create, list, revoke');
      expect(sub.stderr).toContain('  risk-api keys revoke PREFIX [--json]');
    });

    it('takes keys revoke PREFIX positionally and says what is missing with the usage line', async () => {
      const missing = await failing('keys', 'revoke');
      expect(missing.code).toBe(2);
      expect(missing.stderr).toEqual([
        'error: missing PREFIX',
        'usage:',
        '  risk-api keys revoke PREFIX [--json]',
        '      revoke a key by its prefix (rk_…); every server refuses it within KEY_CACHE_TTL_MS',
      ]);
      const unknownKey = await failing('keys', 'revoke', 'rk_nosuchky');
      expect(unknownKey.code).toBe(1);
      expect(unknownKey.stderr).toEqual(['error: no API key with prefix rk_nosuchky']);
    });

    it('says in one line that a file is missing: no stack, no errno name', async () => {
      const file = path.join(env.dataDir, 'no-such-list.txt');
      const r = await failing('feeds', 'import', file, '--name', 'x');
      expect(r.code).toBe(1);
      expect(r.stderr).toEqual([`error: ${file}: no such file or directory`]);
      const dir = await failing('feeds', 'import', env.dataDir, '--name', 'x');
      expect(dir.stderr).toEqual([`error: ${env.dataDir} is a directory, not a feed file`]);
    });
  });
});
