import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { stripGroupAndOtherBits } from '../../src/platform/db/data-dir.ts';
import { MIGRATIONS_DIR } from '../../src/platform/db/migrate.ts';
import { PACKAGE_ROOT } from '../../src/platform/package-root.ts';
import { TEST_CACHE_DIR } from './network.ts';

/**
 * A migrated, empty database that each test database starts as a copy of, instead of creating PostgreSQL's files and
 * applying every migration again (what a server's start cost most after the network data: docs/testing.md).
 * Embedded: a PGlite data directory copied into the test's DATA_DIR. PostgreSQL: a database every test database is
 * created from (CREATE DATABASE ... TEMPLATE). Both are named by a fingerprint of the migrations (and PGlite's
 * version), so a new or changed migration gets a new template; tests about migrating ask for an empty database.
 */
function templateFingerprint(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(MIGRATIONS_DIR).sort()) {
    const file = path.join(MIGRATIONS_DIR, name, 'migration.sql');
    if (existsSync(file)) hash.update(name).update(readFileSync(file));
  }
  // the package's exports hide its package.json: its version is read from the lockfile's record of it
  const lock = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  return hash
    .update(lock.packages['node_modules/@electric-sql/pglite']?.version ?? '')
    .digest('hex')
    .slice(0, 16);
}

const fingerprint = templateFingerprint();

/** The database layer, loaded only to build a template: a run that finds its template skips loading it. */
const openDatabaseLazily = async () => (await import('../../src/platform/db/database.ts')).openDatabase;

/** The PGlite data directory (the `pglite` folder of a DATA_DIR) a test database is copied from. */
export const PGLITE_TEMPLATE = path.join(TEST_CACHE_DIR, `pglite-${fingerprint}`);
/** The PostgreSQL database test databases are created from. */
export const POSTGRES_TEMPLATE = `risk_test_template_${fingerprint}`;

/** Builds the embedded template when it is missing (test/global-setup.ts): in a directory of its own, then renamed
 *  into place, so a run that stops half-way or two runs at once never leave or copy half a template. */
export async function ensurePgliteTemplate(): Promise<void> {
  if (existsSync(PGLITE_TEMPLATE)) return;
  mkdirSync(TEST_CACHE_DIR, { recursive: true });
  const building = mkdtempSync(`${PGLITE_TEMPLATE}.building-`);
  try {
    const db = await (await openDatabaseLazily())({ dataDir: building });
    await db.migrate().finally(() => db.close());
    stripGroupAndOtherBits(building);
    renameSync(path.join(building, 'pglite'), `${building}.done`);
    try {
      renameSync(`${building}.done`, PGLITE_TEMPLATE);
    } catch (e) {
      if (!existsSync(PGLITE_TEMPLATE)) throw e; // else another run finished the same template first
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
    rmSync(`${building}.done`, { recursive: true, force: true });
  }
}

let ready: Promise<void> | undefined;

/** The template of the backend in use, built by this process should it be missing (global setup built it, unless
 *  the migrations changed since the run began). Checked once per process. */
export function templateReady(postgresUrl: string | undefined): Promise<void> {
  ready ??= postgresUrl ? ensurePostgresTemplate(postgresUrl) : ensurePgliteTemplate();
  return ready;
}

/** Copies the embedded template in as `<dataDir>/pglite`. */
export function copyPgliteTemplate(dataDir: string): void {
  cpSync(PGLITE_TEMPLATE, path.join(dataDir, 'pglite'), { recursive: true });
}

/** Builds the PostgreSQL template when it is missing: migrated under a name of its own, then renamed. */
export async function ensurePostgresTemplate(baseUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [POSTGRES_TEMPLATE]);
    if (found.rowCount) return;
    const building = `${POSTGRES_TEMPLATE}_b${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE "${building}"`);
    try {
      const url = new URL(baseUrl);
      url.pathname = `/${building}`;
      const dataDir = mkdtempSync(path.join(tmpdir(), 'risk-api-template-'));
      const db = await (await openDatabaseLazily())({ databaseUrl: url.toString(), dataDir });
      await db.migrate().finally(() => db.close());
      rmSync(dataDir, { recursive: true, force: true });
      await admin.query(`ALTER DATABASE "${building}" RENAME TO "${POSTGRES_TEMPLATE}"`);
    } catch (e) {
      await admin.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
      const done = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [POSTGRES_TEMPLATE]);
      if (!done.rowCount) throw e; // else another run finished the same template first
    }
  } finally {
    await admin.end();
  }
}
