/**
 * Restoring a backup (backup.ts) into a data directory that no process uses. The archive is unpacked into a
 * staging directory inside DATA_DIR, opened with PGlite and its row counts compared with the manifest; only
 * then does it take the place of DATA_DIR/pglite (and its secrets theirs). A refused or failed restore leaves
 * DATA_DIR as it was. A database already there is refused unless `force`, and then set aside, never deleted.
 */
import {
  createReadStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { createGunzip } from 'node:zlib';
import { currentOwner, acquireOwnership } from './embedded-lock.ts';
import { secureDataDir, stripGroupAndOtherBits } from './data-dir.ts';
import { countTables, readBackup, type BackupManifest } from './backup.ts';

export type RestoreResult = {
  file: string;
  dataDir: string;
  takenAt: string;
  tables: number;
  rows: number;
  migrations: number;
  /** What was there before and is now kept beside it (with `force`). */
  setAside: string[];
  /** Files of DATA_DIR/secrets/ restored (the generated API-key pepper). */
  secrets: string[];
};

/** zlib's words for a file that is not whole gzip. */
const GZIP_ERRORS: Record<string, string> = {
  'unexpected end of file': 'the file is truncated',
  'incorrect header check': 'not a gzip file (a backup is a .tar.gz written by "risk-api db backup")',
  'incorrect data check': 'the file is damaged (gzip checksum mismatch)',
};

/** An operator-facing refusal (the CLI prints its message as one line and exits 1). */
function refusal(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** Opens the unpacked database and compares every table's rows with the manifest's counts. */
async function verify(pgliteDir: string, manifest: BackupManifest): Promise<{ tables: number; rows: number }> {
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = new PGlite(pgliteDir);
  try {
    await pglite.waitReady;
    const counts = await countTables(async <T>(sql: string) => (await pglite.query<T>(sql)).rows);
    const names = new Set([...Object.keys(counts), ...Object.keys(manifest.tables)]);
    for (const name of names) {
      if (counts[name] !== manifest.tables[name]) {
        throw new Error(
          `the restored database does not match the backup's manifest: table "${name}" has ${counts[name] ?? 'no'} rows, the backup recorded ${manifest.tables[name] ?? 'none'}`,
        );
      }
    }
    return { tables: names.size, rows: Object.values(counts).reduce((a, b) => a + b, 0) };
  } finally {
    await pglite.close();
  }
}

export async function restoreEmbedded(
  file: string,
  dataDir: string,
  opts: { force?: boolean; now?: Date } = {},
): Promise<RestoreResult> {
  const source = path.resolve(file);
  try {
    if (!statSync(source).isFile()) throw refusal('invalid_request', `${source} is not a file`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw refusal('not_found', `no such file: ${source}`);
    throw e;
  }
  const owner = currentOwner(dataDir);
  if (owner !== null) {
    throw refusal(
      'data_dir_in_use',
      `process ${owner} is using ${dataDir} (a running server?): stop it, restore, then start it again. A restore never replaces a database in use.`,
    );
  }
  secureDataDir(dataDir, () => {});
  const release = acquireOwnership(dataDir); // a server started meanwhile waits for the restore to finish
  const stamp = (opts.now ?? new Date()).toISOString().replace(/[:.]/g, '-');
  const staging = path.join(dataDir, `restore-${process.pid}.partial`);
  try {
    const target = path.join(dataDir, 'pglite');
    const occupied = existsSync(path.join(target, 'PG_VERSION'));
    if (occupied && !opts.force) {
      throw refusal(
        'data_dir_not_empty',
        `${target} already holds a database. Restore into a new DATA_DIR, or pass --force to set the current database aside as pglite.before-restore-${stamp} (nothing is deleted).`,
      );
    }
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { mode: 0o700 });
    const { manifest } = await readBackup(createReadStream(source).pipe(createGunzip()), ({ name, type, data }) => {
      const to = path.join(staging, name);
      if (type === 'directory') {
        mkdirSync(to, { recursive: true, mode: 0o700 });
        return;
      }
      mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
      writeFileSync(to, data, { mode: 0o600, flag: 'wx' });
    }).catch((e: Error) => {
      throw refusal('invalid_backup', `${source}: ${GZIP_ERRORS[e.message] ?? e.message}`);
    });
    const counted = await verify(path.join(staging, 'pglite'), manifest);
    stripGroupAndOtherBits(staging); // PGlite rewrote some files at open with looser modes (see database.ts)

    // A different generated secret already here: the keys hashed with it would stop verifying.
    const secrets = manifest.files
      .map((name) => ({ name, current: path.join(dataDir, name), restored: path.join(staging, name) }))
      .filter((s) => !existsSync(s.current) || !readFileSync(s.current).equals(readFileSync(s.restored)));
    const clashing = secrets.filter((s) => existsSync(s.current));
    if (clashing.length && !opts.force) {
      throw refusal(
        'data_dir_not_empty',
        `${clashing.map((s) => s.current).join(', ')} differs from the backup's: pass --force to set it aside and use the backup's (nothing is deleted).`,
      );
    }

    // Verified: put it in place. Renames within DATA_DIR, so each step is atomic.
    const setAside: string[] = [];
    const moveAside = (p: string) => {
      const to = `${p}.before-restore-${stamp}`;
      renameSync(p, to);
      setAside.push(path.relative(dataDir, to));
    };
    if (existsSync(target)) moveAside(target);
    renameSync(path.join(staging, 'pglite'), target);
    for (const s of secrets) {
      if (existsSync(s.current)) moveAside(s.current);
      mkdirSync(path.dirname(s.current), { recursive: true, mode: 0o700 });
      renameSync(s.restored, s.current);
    }
    return {
      file: source,
      dataDir,
      takenAt: manifest.createdAt,
      tables: counted.tables,
      rows: counted.rows,
      migrations: manifest.migrations.length,
      setAside,
      secrets: manifest.files,
    };
  } finally {
    rmSync(staging, { recursive: true, force: true });
    release();
  }
}
