import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { copyPgliteTemplate, POSTGRES_TEMPLATE, templateReady } from './database-template.ts';
import { TEST_NETWORK_IMAGE_DIR } from './network.ts';

/**
 * The backend a test run uses: the embedded default (PGlite in a temp data directory), or
 * PostgreSQL + Redis when DATABASE_URL / REDIS_URL are set (as the second pass of .ci/run
 * does). Each call gets a fresh database of its own, migrated and empty (database-template.ts).
 */
export const usingPostgres = Boolean(process.env.DATABASE_URL);
export const usingRedis = Boolean(process.env.REDIS_URL);
export const backendName = usingPostgres ? 'postgresql+redis' : 'embedded';

export type TestEnv = { env: Record<string, string>; dataDir: string; cleanup(): Promise<void> };

/** `empty`: a database with no tables yet (tests of migrating); by default a copy of the migrated template. */
export type FreshOptions = { empty?: boolean };

export async function freshEnvironment(extra: Record<string, string> = {}, opts: FreshOptions = {}): Promise<TestEnv> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'risk-api-test-'));
  // Watch detection runs when a test calls it (detectOnce), never on a timer in the middle of another test's counts.
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PORT: '0',
    WATCH_DETECTION_MS: '0',
    NETWORK_IMAGE_DIR: TEST_NETWORK_IMAGE_DIR,
    ...extra,
  };
  if (!opts.empty && !extra.DATABASE_URL) await templateReady(process.env.DATABASE_URL);
  let dropDatabase = async () => {};
  if (usingPostgres) {
    const base = new URL(process.env.DATABASE_URL!);
    const name = `risk_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: base.toString() });
    await admin.connect();
    await admin.query(
      opts.empty ? `CREATE DATABASE "${name}"` : `CREATE DATABASE "${name}" TEMPLATE "${POSTGRES_TEMPLATE}"`,
    );
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
  if (!usingPostgres && !extra.DATABASE_URL && !opts.empty) copyPgliteTemplate(dataDir);
  if (usingRedis && !extra.REDIS_URL && !extra.REDIS_CLUSTER_NODES) {
    env.REDIS_URL = process.env.REDIS_URL!;
    env.REDIS_KEY_PREFIX = `t${randomBytes(6).toString('hex')}`; // runs share one Redis
  }
  // Tests of one file share its local cluster, and their databases number workspaces alike.
  if (extra.REDIS_CLUSTER_NODES && !extra.REDIS_KEY_PREFIX) env.REDIS_KEY_PREFIX = `t${randomBytes(6).toString('hex')}`;
  return {
    env,
    dataDir,
    async cleanup() {
      await dropDatabase();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
