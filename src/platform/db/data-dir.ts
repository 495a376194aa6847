import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * DATA_DIR holds the embedded database (every workspace's reports, password hashes), the counter journal,
 * the admin socket and the generated API-key pepper: nothing in it is for another local user. It is kept
 * owner-only: the directory 0700, everything under it without group or other bits (0600 files, 0700
 * directories), as PostgreSQL and OpenSSH demand of their own data.
 */
export const OWNER_ONLY_UMASK = 0o077;

/** Called first by each process entry point (server, CLI): every file the process creates after it,
 *  by Node or by a dependency, is owner-only unless someone sets a mode explicitly. */
export function restrictUmask(): void {
  process.umask(OWNER_ONLY_UMASK);
}

/** Removes group and other bits from `root` and everything under it; returns the entries it changed
 *  (relative paths, `.` for the root). Symbolic links are neither followed nor changed: one planted in a
 *  directory that was open to others must not make us change a file outside DATA_DIR. A chmod the
 *  operating system refuses (an entry owned by another user) throws: the service does not start on a
 *  data directory it cannot make private. */
export function stripGroupAndOtherBits(root: string): string[] {
  const changed: string[] = [];
  const visit = (p: string, mode: number, isDirectory: boolean) => {
    if ((mode & OWNER_ONLY_UMASK) !== 0) {
      try {
        chmodSync(p, mode & 0o700);
      } catch (e) {
        throw new Error(
          `cannot make ${p} private to its owner (${(e as NodeJS.ErrnoException).code}): give DATA_DIR and everything in it to the service's user`,
        );
      }
      changed.push(path.relative(root, p) || '.');
    }
    if (!isDirectory) return;
    for (const name of readdirSync(p)) {
      const child = path.join(p, name);
      const st = lstatSync(child);
      if (!st.isSymbolicLink()) visit(child, st.mode, st.isDirectory());
    }
  };
  const st = statSync(root); // DATA_DIR itself may be a link to where the operator keeps it
  visit(root, st.mode, st.isDirectory());
  return changed;
}

/**
 * Creates DATA_DIR owner-only, or makes an existing one so (one written by an older version, or with a
 * looser umask), and says so: a warning names how many entries were open and a few of them.
 */
export function secureDataDir(dir: string, warn: (msg: string, fields: Record<string, unknown>) => void): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const changed = stripGroupAndOtherBits(dir);
  if (changed.length) {
    warn('DATA_DIR was open to other local users: removed their access', {
      dir,
      tightened: changed.length,
      examples: changed.slice(0, 5),
    });
  }
}
