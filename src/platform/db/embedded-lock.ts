import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * PGlite is one connection in one process: two processes must never open the same data
 * directory. The owner writes its pid into `owner.pid`; another process that finds a live
 * owner talks to it over the admin socket instead (see src/cli/admin-socket.ts).
 */
export function lockPath(dataDir: string) { return path.join(dataDir, 'owner.pid'); }

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

/** The pid of a live owner of the data directory, or null. */
export function currentOwner(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(lockPath(dataDir), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : null;
  } catch { return null; }
}

/** Takes ownership (replacing a stale lock of a dead process); throws when a live process owns it. */
export function acquireOwnership(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const owner = currentOwner(dataDir);
  if (owner !== null) throw new Error(`the data directory ${dataDir} is in use by process ${owner}`);
  writeFileSync(lockPath(dataDir), String(process.pid), { mode: 0o600 });
  return () => {
    try { if (readFileSync(lockPath(dataDir), 'utf8').trim() === String(process.pid)) rmSync(lockPath(dataDir)); } catch { /* gone */ }
  };
}
