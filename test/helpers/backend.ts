import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The backend a test run uses: the embedded default (PGlite in a temp data directory), or
 * PostgreSQL + Redis when DATABASE_URL / REDIS_URL are set (as the second pass of .ci/run
 * does). Each call gets a fresh, empty database of its own.
 */
export const usingPostgres = Boolean(process.env.DATABASE_URL);
export const usingRedis = Boolean(process.env.REDIS_URL);
export const backendName = usingPostgres ? 'postgresql+redis' : 'embedded';

export type TestEnv = { env: Record<string, string>; dataDir: string; cleanup(): Promise<void> };

export async function freshEnvironment(extra: Record<string, string> = {}): Promise<TestEnv> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'risk-api-test-'));
  // Watch detection runs when a test calls it (detectOnce), never on a timer in the middle of another test's counts.
  const env: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: '0', WATCH_DETECTION_MS: '0', ...extra };
  let dropDatabase = async () => {};
  if (usingPostgres) {
    const base = new URL(process.env.DATABASE_URL!);
    const name = `risk_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: base.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const url = new URL(base);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    dropDatabase = async () => {
      const c = new pg.Client({ connectionString: base.toString() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    };
  }
  if (usingRedis && !extra.REDIS_URL) {
    env.REDIS_URL = process.env.REDIS_URL!;
    env.REDIS_KEY_PREFIX = `t${randomBytes(6).toString('hex')}`; // runs share one Redis
  }
  return {
    env, dataDir,
    async cleanup() {
      await dropDatabase();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
