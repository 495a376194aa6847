import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freshEnvironment, backendName, usingPostgres, type TestEnv } from '../helpers/backend.ts';
import { openDatabase, type Database } from '../../src/platform/db/database.ts';
import { establishPepper, pepperFingerprint } from '../../src/domain/access/pepper.ts';
import { StartError } from '../../src/platform/start/start-error.ts';
import { SERVER_ENTRY } from '../helpers/server-entry.ts';

/**
 * One pepper per database: the first process records its fingerprint; a server or CLI with another pepper, or with
 * none where the database has one, refuses with one line naming API_KEY_PEPPER, and writes nothing.
 */
const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/risk-api.mjs');
const PEPPER_A = 'a'.repeat(40);
const PEPPER_B = 'b'.repeat(40);

// Each case starts Node processes (the CLI through tsx, the server bundle): minutes on a loaded 2-core machine.
describe(`one pepper per database (${backendName})`, () => {
  let env: TestEnv;
  /** The database opened only for the moment: the embedded one admits one process at a time, and the CLI and the
   *  server cases run their own. */
  const withDb = async <T>(fn: (db: Database) => Promise<T>): Promise<T> => {
    const db = await openDatabase({ databaseUrl: env.env.DATABASE_URL, dataDir: env.dataDir });
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  };
  const keyCount = () => withDb((db) => db.prisma.apiKey.count());
  /** The CLI in its own process; `dataDir` lets a case be "another machine" sharing only the database. */
  const cli = (extra: Record<string, string | undefined>, ...args: string[]) =>
    run(process.execPath, [BIN, ...args], {
      env: Object.fromEntries(
        Object.entries({ PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env.env, ...extra }).filter(
          (e): e is [string, string] => e[1] !== undefined,
        ),
      ),
      timeout: 60_000,
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );

  beforeAll(async () => {
    env = await freshEnvironment();
    await withDb((db) => db.migrate());
  });
  afterAll(() => env?.cleanup());

  it('the first process records its pepper; the same pepper passes, another one is refused', () =>
    withDb(async (db) => {
      expect(await establishPepper(db.prisma, PEPPER_A, env.dataDir)).toBe(PEPPER_A);
      const row = await db.prisma.pepperFingerprint.findUniqueOrThrow({ where: { id: 1 } });
      expect(row.fingerprint).toBe(pepperFingerprint(PEPPER_A));
      expect(row.fingerprint).not.toContain(PEPPER_A);
      expect(await establishPepper(db.prisma, PEPPER_A, env.dataDir)).toBe(PEPPER_A);
      const refusal = await establishPepper(db.prisma, PEPPER_B, env.dataDir).catch((e) => e);
      expect(refusal).toBeInstanceOf(StartError);
      expect((refusal as StartError).setting).toBe('API_KEY_PEPPER');
      expect((refusal as Error).message).toContain(pepperFingerprint(PEPPER_A).slice(0, 12));
      expect((refusal as Error).message).not.toContain(PEPPER_B);
    }));

  it('a process without API_KEY_PEPPER and no pepper file is refused, and none is generated', () =>
    withDb(async (db) => {
      const elsewhere = mkdtempSync(path.join(tmpdir(), 'risk-api-pepper-'));
      try {
        const refusal = await establishPepper(db.prisma, undefined, elsewhere).catch((e) => e);
        expect(refusal).toBeInstanceOf(StartError);
        expect((refusal as Error).message).toMatch(/API_KEY_PEPPER: is not set/);
        expect(existsSync(path.join(elsewhere, 'secrets', 'api-key-pepper'))).toBe(false);
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    }));

  it('the CLI refuses a different pepper, and a missing one, with one line, and makes no key', async () => {
    const before = await keyCount();
    const other = mkdtempSync(path.join(tmpdir(), 'risk-api-pepper-'));
    try {
      for (const extra of [
        { API_KEY_PEPPER: PEPPER_B },
        // Another machine on the same PostgreSQL, or the embedded data directory with its pepper file lost.
        { API_KEY_PEPPER: undefined, DATA_DIR: usingPostgres ? other : env.dataDir },
      ]) {
        const out = await cli(extra, 'keys', 'create', '--workspace', 'pepper-ws', '--name', 'k', '--json');
        expect(out.code).toBe(1);
        const lines = out.stderr.split('\n').filter((l) => l && !l.includes('ExperimentalWarning'));
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(/^error: API_KEY_PEPPER: .+\. Fix: set API_KEY_PEPPER/);
      }
      expect(await keyCount()).toBe(before);
      // The right pepper works.
      const ok = await cli({ API_KEY_PEPPER: PEPPER_A }, 'keys', 'create', '--workspace', 'pepper-ws', '--name', 'k');
      expect(ok.code).toBe(0);
      expect(await keyCount()).toBe(before + 1);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('the server refuses to start with a different pepper: one line, at once', async () => {
    const child = spawn(process.execPath, [SERVER_ENTRY], {
      env: { PATH: process.env.PATH!, ...env.env, LOG_LEVEL: 'info', API_KEY_PEPPER: PEPPER_B },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((r) => child.on('close', r));
    expect(code).toBe(1);
    const lines = stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^risk-api cannot start: API_KEY_PEPPER: .+ is not the pepper this database's API keys/);
    expect(stderr).not.toContain(PEPPER_B);
  });

  it.runIf(!usingPostgres)(
    'embedded: the generated pepper in DATA_DIR is recorded and used without any setting',
    async () => {
      const fresh = await freshEnvironment();
      const own = await openDatabase({ dataDir: fresh.dataDir });
      try {
        await own.migrate();
        const generated = await establishPepper(own.prisma, undefined, fresh.dataDir);
        expect(existsSync(path.join(fresh.dataDir, 'secrets', 'api-key-pepper'))).toBe(true);
        expect(await establishPepper(own.prisma, undefined, fresh.dataDir)).toBe(generated);
        unlinkSync(path.join(fresh.dataDir, 'secrets', 'api-key-pepper'));
        await expect(establishPepper(own.prisma, undefined, fresh.dataDir)).rejects.toThrow(/is not set/);
      } finally {
        await own.close();
        await fresh.cleanup();
      }
    },
  );
});
