import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SERVER_ENTRY } from '../helpers/server-entry.ts';
import { usingPostgres } from '../helpers/backend.ts';

/**
 * A start the operator can fix ends at once with one line on stderr naming the setting and the fix: no stack, no
 * JSON log, nothing of the start-up done (the network data is not even loaded: stdout stays empty).
 */
type Run = { code: number | null; stdout: string; stderr: string };
let dataDir: string;
function start(env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER_ENTRY], {
      // Only what the test sets: a DATABASE_URL or REDIS_URL of the test run must not leak into a case.
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A port nobody listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

function expectOneLine(run: Run, setting: string, words: RegExp): void {
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  const lines = run.stderr.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^risk-api cannot start: ${setting}: .+\\. Fix: .+`));
  expect(lines[0]).toMatch(words);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

describe('start failures', () => {
  let taken: Server;
  let takenPort: number;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'risk-api-start-'));
    taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    takenPort = (taken.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((r) => taken.close(r));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a port in use names PORT and a free port to use', async () => {
    const run = await start({ PORT: String(takenPort) });
    expectOneLine(run, 'PORT', new RegExp(`127\\.0\\.0\\.1:${takenPort} is already in use.*PORT=${takenPort + 1}`));
  });

  it('a HOST that is not an address of this machine names HOST', async () => {
    expectOneLine(await start({ PORT: '0', HOST: '192.0.2.1' }), 'HOST', /192\.0\.2\.1 is not an address/);
  });

  it('a bad setting names it and its bounds, never its value', async () => {
    expectOneLine(await start({ PORT: 'eighty' }), 'PORT', /must be a whole number from 0 to 65535/);
    const two = await start({ PORT: '99999', API_KEY_PEPPER: 'too-short-secret' });
    expect(two.code).toBe(1);
    const lines = two.stderr.split('\n').filter(Boolean);
    expect(lines.map((l) => l.split(':')[1]!.trim())).toEqual(['PORT', 'API_KEY_PEPPER']);
    expect(two.stderr).not.toContain('too-short-secret');
  });

  it('an unreachable PostgreSQL names DATABASE_URL, without the password', async () => {
    const port = await closedPort();
    const run = await start({ PORT: '0', DATABASE_URL: `postgresql://app:s3cret@127.0.0.1:${port}/risk` });
    expectOneLine(run, 'DATABASE_URL', new RegExp(`127\\.0\\.0\\.1:${port} cannot be reached \\(ECONNREFUSED\\)`));
    expect(run.stderr).not.toContain('s3cret');
  });

  it('an unreachable Redis names REDIS_URL', async () => {
    const port = await closedPort();
    const run = await start({ PORT: '0', REDIS_URL: `redis://127.0.0.1:${port}` });
    expectOneLine(run, 'REDIS_URL', new RegExp(`127\\.0\\.0\\.1:${port} cannot be reached`));
  });

  it.runIf(usingPostgres)(
    'a database that does not exist, and a role PostgreSQL refuses, name DATABASE_URL',
    async () => {
      const base = new URL(process.env.DATABASE_URL!);
      const missing = new URL(base);
      missing.pathname = '/risk_api_no_such_database';
      expectOneLine(await start({ PORT: '0', DATABASE_URL: missing.href }), 'DATABASE_URL', /no such database/);
      const stranger = new URL(base);
      stranger.username = 'risk_api_no_such_role';
      expectOneLine(await start({ PORT: '0', DATABASE_URL: stranger.href }), 'DATABASE_URL', /refused the credentials/);
    },
  );
});
