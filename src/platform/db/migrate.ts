import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SqlRunner } from './sql.ts';
import { PACKAGE_ROOT } from '../package-root.ts';

/**
 * Applies prisma/migrations/*\/migration.sql in name order, recording each in Prisma's own
 * `_prisma_migrations` table (same columns and checksums), so `prisma migrate status` run
 * elsewhere agrees. An advisory lock makes concurrent starts of several processes safe;
 * each migration runs in its own transaction, so a crash never leaves one half-applied.
 */
export const MIGRATIONS_DIR = path.join(PACKAGE_ROOT, 'prisma', 'migrations');
const LOCK_ID = 7_264_190_311; // arbitrary, constant: "risk-api migrations"

export type MigrationResult = { applied: string[]; alreadyApplied: number };

/** What `risk-api db status` shows: the migrations this database has, and those the code has that it lacks. */
export type MigrationStatus = {
  applied: Array<{ name: string; finishedAt: Date }>;
  /** In prisma/migrations, not yet applied: the next start (or `db migrate`) applies them. */
  pending: string[];
  /** Applied, but their file has changed since: the next start refuses to run. */
  changed: string[];
  /** Applied by a newer version of the code (not in prisma/migrations). */
  unknown: string[];
};

const HISTORY =
  'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name';
type HistoryRow = { migration_name: string; checksum: string; finished_at: Date };

async function migrationFiles(dir: string): Promise<Array<{ name: string; script: string; checksum: string }>> {
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const script = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, script, checksum: createHash('sha256').update(script).digest('hex') };
    }),
  );
}

/** Reads the history without changing anything (a database never migrated has none). */
export async function migrationStatus(sql: SqlRunner, dir = MIGRATIONS_DIR): Promise<MigrationStatus> {
  const files = await migrationFiles(dir);
  const present =
    (await sql.query<{ present: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`))[0]
      ?.present === true;
  const rows = present ? await sql.query<HistoryRow>(HISTORY) : [];
  const done = new Map(rows.map((r) => [r.migration_name, r]));
  return {
    applied: rows.map((r) => ({ name: r.migration_name, finishedAt: new Date(r.finished_at) })),
    pending: files.filter((f) => !done.has(f.name)).map((f) => f.name),
    changed: files.filter((f) => done.has(f.name) && done.get(f.name)!.checksum !== f.checksum).map((f) => f.name),
    unknown: rows.filter((r) => !files.some((f) => f.name === r.migration_name)).map((r) => r.migration_name),
  };
}

export async function migrate(sql: SqlRunner, dir = MIGRATIONS_DIR): Promise<MigrationResult> {
  const files = await migrationFiles(dir);
  await sql.query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
  try {
    await sql.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ, "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ, "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const rows = await sql.query<HistoryRow>(HISTORY);
    const done = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    const applied: string[] = [];
    for (const { name, script, checksum } of files) {
      const previous = done.get(name);
      if (previous !== undefined) {
        if (previous !== checksum)
          throw new Error(`migration ${name} was changed after it was applied (checksum differs)`);
        continue;
      }
      await sql.exec('BEGIN');
      try {
        await sql.exec(script);
        await sql.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), checksum, name],
        );
        await sql.exec('COMMIT');
      } catch (e) {
        await sql.exec('ROLLBACK');
        throw new Error(`migration ${name} failed: ${(e as Error).message}`);
      }
      applied.push(name);
    }
    return { applied, alreadyApplied: done.size };
  } finally {
    await sql.query('SELECT pg_advisory_unlock($1)', [LOCK_ID]);
  }
}
