import { afterEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import path from 'node:path';
import { freshEnvironment, backendName, usingPostgres, type TestEnv } from '../helpers/backend.ts';
import { ServerProcesses } from '../reliability/support.ts';
import { lockPath } from '../../src/platform/db/embedded-lock.ts';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/risk-api.mjs');

/**
 * The README's quick start: `npm start &`, then at once `npx risk-api keys create …`. On the embedded default
 * a starting server holds DATA_DIR (PGlite allows one process) seconds before its admin socket listens: the
 * CLI could neither open the database nor reach the server. And a CLI that got there first made the server's
 * start fail. Whichever process takes DATA_DIR first, both must succeed. (On PostgreSQL both open the
 * database, and the same sequence must work too.)
 */
describe(`a CLI command run while the server is starting (${backendName})`, () => {
  const servers = new ServerProcesses();
  let env: TestEnv;
  afterEach(async () => {
    await servers.stopAll();
    await env?.cleanup();
  });

  const createKey = () =>
    run(
      process.execPath,
      [BIN, 'keys', 'create', '--workspace', 'quick', '--name', 'start', '--tier', 'developer', '--json'],
      {
        env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env.env },
        timeout: 90_000,
      },
    );
  /** Resolves once the process `pid` owns DATA_DIR (the embedded lock), so the test knows who got there first. */
  async function owns(pid: number) {
    if (usingPostgres) return;
    const owner = () => {
      try {
        return readFileSync(lockPath(env.dataDir), 'utf8').trim();
      } catch {
        return '';
      }
    };
    while (owner() !== String(pid)) await sleep(10);
  }
  async function expectScoreWorks(url: string, key: { prefix: string; secret: string }) {
    expect(key.secret.startsWith(`${key.prefix}_`)).toBe(true);
    const res = await fetch(`${url}/risk_api/score/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key.secret },
      body: JSON.stringify({ ip: '9.9.9.9' }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).quota).toMatchObject({ daily_limit: 1000, used_today: 1 });
  }

  it('the server took DATA_DIR first: the CLI waits for its admin socket, says so once, then runs inside it', {
    timeout: 120_000,
  }, async () => {
    env = await freshEnvironment();
    const listening = servers.start(env.env);
    listening.catch(() => {}); // awaited below
    await owns(servers.pids()[0]!);
    const created = await createKey();
    if (!usingPostgres) expect(created.stderr.match(/waiting for the server to finish starting/g)).toHaveLength(1);
    await expectScoreWorks(await listening, JSON.parse(created.stdout));
  });

  it('the CLI took DATA_DIR first: the server waits for it to let go, then starts', async () => {
    env = await freshEnvironment();
    const created = createKey();
    await owns(created.child.pid!);
    const listening = servers.start(env.env);
    listening.catch(() => {}); // awaited below
    const key = JSON.parse((await created).stdout);
    await expectScoreWorks(await listening, key);
  });
});
