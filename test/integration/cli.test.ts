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
    const { stdout } = await run(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env.env }, timeout: 60_000 });
    return stdout;
  };
  beforeAll(async () => { env = await freshEnvironment({ KEY_CACHE_TTL_MS: '300' }); });
  afterAll(() => env?.cleanup());

  let first: { workspace: string; name: string; prefix: string; secret: string };

  it('creates a key while no server runs and prints the secret once, as JSON', async () => {
    first = JSON.parse(await cli('keys', 'create', '--workspace', 'cli-ws', '--name', 'pipeline', '--tier', 'developer', '--json'));
    expect(first).toEqual({ workspace: 'cli-ws', name: 'pipeline', prefix: expect.stringMatching(/^rk_[A-Za-z0-9]{8}$/), secret: expect.any(String) });
    expect(first.secret.startsWith(`${first.prefix}_`)).toBe(true);
  });

  it('lists keys without their secrets', async () => {
    const out = await cli('keys', 'list', '--json');
    const keys = JSON.parse(out);
    expect(keys).toEqual([expect.objectContaining({ workspace: 'cli-ws', name: 'pipeline', prefix: first.prefix, status: 'active', last_used_at: null })]);
    expect(out).not.toContain(first.secret.slice(first.prefix.length + 1));
  });

  describe('while the server runs', () => {
    let app: App;
    let url: string;
    beforeAll(async () => {
      app = await createApp(loadConfig(env.env), { log: createLogger('silent') });
      url = await app.listen(0, '127.0.0.1');
    });
    afterAll(() => app?.close());

    const rate = (secret: string) => fetch(`${url}/risk_api/rate/`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': secret }, body: JSON.stringify({ ip: '192.0.2.1', rating: 0 }),
    });

    it('creates a key the server accepts at once, and sets a tier', async () => {
      const second = JSON.parse(await cli('keys', 'create', '--workspace', 'cli-ws', '--name', 'second', '--json'));
      expect((await rate(second.secret)).status).toBe(201);
      expect(JSON.parse(await cli('workspaces', 'set-tier', 'cli-ws', 'startup', '--json'))).toEqual({ workspace: 'cli-ws', tier: 'startup' });
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
});
