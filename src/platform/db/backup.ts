/**
 * Backups of the embedded database: one tar.gz holding a manifest, DATA_DIR/secrets/ (the generated API-key
 * pepper: without it no stored key verifies) and PGlite's data directory, taken while the service runs.
 *
 * Consistency: PGlite is PostgreSQL in this process, without background workers, writing its files through
 * Node's fs as it goes. The snapshot holds PGlite's transaction lock (every query, exec and transaction waits
 * for it, so no transaction is open or can begin), runs CHECKPOINT (every committed change is then in the data
 * files; nothing is left to replay from WAL), counts every table, and copies the data directory inside
 * DATA_DIR; then it lets go. Archiving and compressing read that copy while the service carries on. The copy,
 * and the counts in the manifest that a restore checks, are of one state between two transactions.
 *
 * PGlite's own `dumpDataDir()` takes the same state but builds the whole archive in memory, about three times
 * the directory's size: docs/decisions/0017-embedded-backup-copies-the-data-directory.md.
 */
import { constants, createReadStream, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { Readable, pipeline } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { PGlite } from '@electric-sql/pglite';
import { readTar, tarHeader, tarPadding, TAR_END } from './tar.ts';

export const MANIFEST_NAME = 'risk-api-backup.json';
const FORMAT = 'risk-api-backup';
const VERSION = 1;
/** Names inside a backup: these top-level entries only, each path segment of these characters only. */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const TOP_LEVEL = new Set(['pglite', 'secrets']);

export type BackupManifest = {
  format: typeof FORMAT;
  version: typeof VERSION;
  createdAt: string;
  backend: 'pglite';
  postgresVersion: string;
  /** Migrations applied to the database when it was taken. */
  migrations: string[];
  /** Rows of every table of the public schema at that moment. */
  tables: Record<string, number>;
  /** Files of DATA_DIR/secrets/ included (relative to DATA_DIR). */
  files: string[];
};

/** A consistent copy of the database in `dir` (inside DATA_DIR), removed by the archive that reads it. */
export type EmbeddedSnapshot = {
  dir: string;
  tables: Record<string, number>;
  postgresVersion: string;
  migrations: string[];
};

type Query = <T>(sql: string) => Promise<T[]>;

/** Row counts of every table of the public schema (the migrations' table included). */
export async function countTables(query: Query): Promise<Record<string, number>> {
  const tables = await query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    counts[name] = (await query<{ n: number }>(`SELECT count(*)::int AS n FROM "${name.replaceAll('"', '""')}"`))[0]!.n;
  }
  return counts;
}

async function appliedMigrations(query: Query): Promise<string[]> {
  const present = (
    await query<{ present: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`)
  )[0]?.present;
  if (!present) return [];
  const rows = await query<{ name: string }>(
    'SELECT migration_name AS name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name',
  );
  return rows.map((r) => r.name);
}

const SNAPSHOT_DIR = /^snapshot-\d+-\d+\.partial$/;
/** Snapshots this process is archiving; any other one in DATA_DIR was left by a process that died. */
const active = new Set<string>();
let sequence = 0;

function removeStaleSnapshots(dataDir: string): void {
  for (const name of readdirSync(dataDir)) {
    if (SNAPSHOT_DIR.test(name) && !active.has(path.join(dataDir, name)))
      rmSync(path.join(dataDir, name), { recursive: true, force: true });
  }
}

export async function snapshotPglite(pglite: PGlite, pgliteDir: string, dataDir: string): Promise<EmbeddedSnapshot> {
  removeStaleSnapshots(dataDir);
  const dir = path.join(dataDir, `snapshot-${process.pid}-${++sequence}.partial`);
  active.add(dir);
  try {
    return await pglite.transaction(async (tx) => {
      const query: Query = async <T>(sql: string) => (await tx.query<T>(sql)).rows;
      await tx.exec('CHECKPOINT');
      const tables = await countTables(query);
      const migrations = await appliedMigrations(query);
      const postgresVersion =
        (await query<{ v: string }>("SELECT current_setting('server_version') AS v"))[0]?.v ?? 'unknown';
      // A copy-on-write clone where the file system offers one (btrfs, XFS), else a plain copy.
      await cp(pgliteDir, path.join(dir, 'pglite'), { recursive: true, mode: constants.COPYFILE_FICLONE });
      return { dir, tables, migrations, postgresVersion };
    });
  } catch (e) {
    discard(dir);
    throw e;
  }
}

function discard(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  active.delete(dir);
}

/** Every directory and file under `root`, parents first, in name order (paths relative to `base`). */
function* walk(
  base: string,
  root: string,
): Generator<{ name: string; full: string; directory: boolean; size: number; mtime: Date }> {
  const st = statSync(root);
  yield { name: path.relative(base, root), full: root, directory: st.isDirectory(), size: st.size, mtime: st.mtime };
  if (!st.isDirectory()) return;
  for (const child of readdirSync(root).sort()) yield* walk(base, path.join(root, child));
}

function secretFiles(dataDir: string): Array<{ name: string; data: Buffer }> {
  const dir = path.join(dataDir, 'secrets');
  let names: string[];
  try {
    names = readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isFile() && SEGMENT.test(d.name))
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
  return names.map((name) => ({ name: `secrets/${name}`, data: readFileSync(path.join(dir, name)) }));
}

/** The backup of a snapshot as gzip-compressed chunks (compressed in libuv's thread pool, not on the event loop). */
export function backupArchive(
  snapshot: EmbeddedSnapshot,
  dataDir: string,
  createdAt = new Date(),
): { manifest: BackupManifest; body: Readable } {
  const secrets = secretFiles(dataDir);
  const manifest: BackupManifest = {
    format: FORMAT,
    version: VERSION,
    createdAt: createdAt.toISOString(),
    backend: 'pglite',
    postgresVersion: snapshot.postgresVersion,
    migrations: snapshot.migrations,
    tables: snapshot.tables,
    files: secrets.map((s) => s.name),
  };
  async function* tar(): AsyncGenerator<Buffer> {
    try {
      const file = (name: string, data: Buffer) => [
        tarHeader({ name, type: 'file', mode: 0o600, mtime: createdAt, size: data.length }),
        data,
        tarPadding(data.length),
      ];
      yield* file(MANIFEST_NAME, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
      if (secrets.length)
        yield tarHeader({ name: 'secrets', type: 'directory', mode: 0o700, mtime: createdAt, size: 0 });
      for (const s of secrets) yield* file(s.name, s.data);
      for (const e of walk(snapshot.dir, path.join(snapshot.dir, 'pglite'))) {
        yield tarHeader({
          name: e.name,
          type: e.directory ? 'directory' : 'file',
          mode: e.directory ? 0o700 : 0o600,
          mtime: e.mtime,
          size: e.size,
        });
        if (e.directory) continue;
        let read = 0;
        for await (const chunk of createReadStream(e.full)) {
          read += (chunk as Buffer).length;
          yield chunk as Buffer;
        }
        if (read !== e.size) throw new Error(`${e.full} changed while it was archived`);
        yield tarPadding(e.size);
      }
      yield TAR_END;
    } finally {
      discard(snapshot.dir);
    }
  }
  return { manifest, body: pipeline(Readable.from(tar()), createGzip(), () => {}) };
}

function checkName(name: string): void {
  const segments = name.split('/');
  if (
    !TOP_LEVEL.has(segments[0]!) ||
    !segments.every((s) => SEGMENT.test(s)) ||
    (segments[0] === 'secrets' && segments.length > 2)
  ) {
    throw new Error(
      `the backup holds an unexpected entry "${name.slice(0, 120)}": not a risk-api backup, or a damaged one`,
    );
  }
}

function parseManifest(data: Buffer): BackupManifest {
  let m: Partial<BackupManifest>;
  try {
    m = JSON.parse(data.toString('utf8')) as Partial<BackupManifest>;
  } catch {
    throw new Error(`${MANIFEST_NAME} is not JSON: a damaged backup`);
  }
  if (m.format !== FORMAT || typeof m.version !== 'number')
    throw new Error(`${MANIFEST_NAME} is not a risk-api backup manifest`);
  if (m.version > VERSION)
    throw new Error(
      `the backup is of format version ${m.version}; this version of risk-api reads version ${VERSION}: restore it with a newer risk-api`,
    );
  if (typeof m.tables !== 'object' || m.tables === null || !Array.isArray(m.migrations) || !Array.isArray(m.files))
    throw new Error(`${MANIFEST_NAME} is incomplete: a damaged backup`);
  return m as BackupManifest;
}

/**
 * Reads a backup (the decompressed tar's chunks) from start to end, checking its manifest (the first entry),
 * every entry's name and the archive's end; gives each other entry to `onEntry` (restore writes them). Throws
 * on anything else, so a truncated, damaged or foreign file is refused before anything is put in place.
 */
export async function readBackup(
  chunks: AsyncIterable<Uint8Array>,
  onEntry: (entry: { name: string; type: 'file' | 'directory'; data: Buffer }) => Promise<void> | void = () => {},
): Promise<{ manifest: BackupManifest; entries: number }> {
  let manifest: BackupManifest | null = null;
  let entries = 0;
  const seen = new Set<string>();
  for await (const { entry, data } of readTar(chunks)) {
    if (manifest === null) {
      if (entry.name !== MANIFEST_NAME)
        throw new Error(`not a risk-api backup (its first entry is not ${MANIFEST_NAME})`);
      manifest = parseManifest(data);
      continue;
    }
    checkName(entry.name);
    seen.add(entry.name);
    entries++;
    await onEntry({ name: entry.name, type: entry.type, data });
  }
  if (manifest === null) throw new Error('the backup is empty');
  if (!seen.has('pglite/PG_VERSION')) throw new Error('the backup holds no database (pglite/PG_VERSION is missing)');
  const missing = manifest.files.filter((f) => !seen.has(f));
  if (missing.length)
    throw new Error(`the backup lacks ${missing.join(', ')}, which its manifest lists: a damaged backup`);
  return { manifest, entries };
}
