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

export async function migrate(sql: SqlRunner, dir = MIGRATIONS_DIR): Promise<MigrationResult> {
  const names = (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  await sql.query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
  try {
    await sql.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ, "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ, "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const rows = await sql.query<{ migration_name: string; checksum: string }>(
      'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL');
    const done = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    const applied: string[] = [];
    for (const name of names) {
      const script = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      const checksum = createHash('sha256').update(script).digest('hex');
      const previous = done.get(name);
      if (previous !== undefined) {
        if (previous !== checksum) throw new Error(`migration ${name} was changed after it was applied (checksum differs)`);
        continue;
      }
      await sql.exec('BEGIN');
      try {
        await sql.exec(script);
        await sql.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`, [randomUUID(), checksum, name]);
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
