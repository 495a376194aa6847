/**
 * The CLI's side of `db backup`, `db restore` and `db status`. A backup is taken by whichever process owns the
 * database (the running server, through the admin socket, or this one) and its bytes are written here, by the
 * operator's own process, so FILE is where the operator means it (not in a server's private /tmp). A restore
 * runs only here, and only on a data directory no process uses (src/platform/db/restore.ts).
 */
import { createReadStream, renameSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { createGunzip } from 'node:zlib';
import { readBackup, type BackupManifest } from '../platform/db/backup.ts';
import type { MigrationStatus } from '../platform/db/migrate.ts';
import { restoreEmbedded, type RestoreResult } from '../platform/db/restore.ts';
import type { Config } from '../config.ts';
import type { BodyReply } from '../transport/admin/socket.ts';

export type BackupResult = {
  file: string;
  bytes: number;
  takenAt: string;
  tables: number;
  rows: number;
  migrations: number;
  secrets: string[];
};
type DbStatus = MigrationStatus & { backend: 'pglite' | 'postgresql' };

function refusal(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** FILE of `db backup`, checked before the server is asked for anything. */
export function backupTarget(file: unknown): string {
  if (typeof file !== 'string' || file === '')
    throw refusal('invalid_request', 'db backup needs a FILE to write (for example backup.tar.gz)');
  const target = path.resolve(file);
  let dir;
  try {
    dir = statSync(path.dirname(target));
  } catch {
    throw refusal('not_found', `no such directory: ${path.dirname(target)}`);
  }
  if (!dir.isDirectory()) throw refusal('invalid_request', `${path.dirname(target)} is not a directory`);
  try {
    if (statSync(target).isDirectory())
      throw refusal('invalid_request', `${target} is a directory; name the file to write`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  return target;
}

/**
 * Writes the backup beside FILE (0600), reads it back whole (gzip checksum, every entry, the manifest) and only
 * then renames it to FILE: a cut connection or a full disk never leaves a FILE that looks like a backup.
 */
export async function saveBackup(target: string, reply: BodyReply): Promise<BackupResult> {
  const manifest = reply.result as BackupManifest;
  const partial = `${target}.partial-${process.pid}`;
  let bytes = 0;
  try {
    const handle = await open(partial, 'wx', 0o600);
    try {
      for await (const chunk of reply.body) {
        await handle.write(chunk);
        bytes += chunk.length;
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    const check = await readBackup(createReadStream(partial).pipe(createGunzip())).catch((e: Error) => {
      throw refusal(
        'invalid_backup',
        `the backup did not arrive whole (${e.message}); nothing was written to ${target}`,
      );
    });
    if (JSON.stringify(check.manifest) !== JSON.stringify(manifest))
      throw refusal(
        'invalid_backup',
        `the backup written differs from the one taken; nothing was written to ${target}`,
      );
    renameSync(partial, target);
  } catch (e) {
    rmSync(partial, { force: true });
    throw e;
  }
  return {
    file: target,
    bytes,
    takenAt: manifest.createdAt,
    tables: Object.keys(manifest.tables).length,
    rows: Object.values(manifest.tables).reduce((a, b) => a + b, 0),
    migrations: manifest.migrations.length,
    secrets: manifest.files,
  };
}

export async function restore(args: Record<string, unknown>, config: Config): Promise<RestoreResult> {
  if (config.databaseUrl)
    throw refusal(
      'invalid_request',
      'DATABASE_URL is set: restore PostgreSQL with pg_restore (docs/operations.md, "Backups"); db restore is for the embedded database',
    );
  if (typeof args.file !== 'string' || args.file === '')
    throw refusal('invalid_request', 'db restore needs the FILE of a backup');
  return restoreEmbedded(args.file, config.dataDir, { force: args.force === true });
}

const size = (bytes: number) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.ceil(bytes / 1e3)} kB`);
const when = (iso: string | Date) =>
  new Date(iso)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');

/** Human-readable output of the db commands; false when `command` is not one of them. */
export function printDb(command: string, result: unknown): boolean {
  if (command === 'db backup') {
    const r = result as BackupResult;
    console.log(
      `Backup written to ${r.file} (${size(r.bytes)}, mode 0600): ${r.tables} tables, ${r.rows.toLocaleString('en-US')} rows, ${r.migrations} migrations, taken ${when(r.takenAt)}.`,
    );
    if (r.secrets.length) console.log(`It holds ${r.secrets.join(', ')}: keep it as private as the database.`);
    else
      console.log(
        'It holds no generated API-key pepper: API_KEY_PEPPER must be set to the same value where it is restored.',
      );
  } else if (command === 'db restore') {
    const r = result as RestoreResult;
    console.log(
      `Restored ${r.file} (taken ${when(r.takenAt)}) into ${r.dataDir}: ${r.tables} tables, ${r.rows.toLocaleString('en-US')} rows, checked against the backup's counts.`,
    );
    for (const p of r.setAside) console.log(`  set aside: ${path.join(r.dataDir, p)}`);
    console.log('Start the server: it applies any migrations newer than the backup.');
  } else if (command === 'db status') {
    const r = result as DbStatus;
    console.log(`backend: ${r.backend === 'pglite' ? 'embedded (PGlite)' : 'PostgreSQL'}`);
    console.log(`applied: ${r.applied.length} migrations`);
    for (const m of r.applied)
      console.log(
        `  ${m.name}  ${when(m.finishedAt)}${r.changed.includes(m.name) ? '  CHANGED since it was applied' : ''}${r.unknown.includes(m.name) ? '  (not in this version)' : ''}`,
      );
    console.log(
      r.pending.length
        ? `pending: ${r.pending.length} (applied at the next start, or by "risk-api db migrate")`
        : 'pending: none',
    );
    for (const name of r.pending) console.log(`  ${name}`);
  } else {
    return false;
  }
  return true;
}
