import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * PGlite is one connection in one process: two processes must never open the same data
 * directory. The owner writes its pid into `owner.pid`; another process that finds a live
 * owner talks to it over the admin socket instead (see src/transport/admin/socket.ts).
 */
export function lockPath(dataDir: string) {
  return path.join(dataDir, 'owner.pid');
}

/** How long a process waits for a live owner to let go: a CLI command (a key, a tier) holds the directory for
 *  seconds, so a server started meanwhile waits for it instead of failing its start. */
const OWNER_WAIT_MS = 30_000;
const POLL_MS = 50;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of a live owner of the data directory, or null. */
export function currentOwner(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(lockPath(dataDir), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Takes ownership (replacing a stale lock of a dead process). While a live process owns it, waits up to
 * OWNER_WAIT_MS for it to let go, then throws. The wait blocks this thread: it runs while a process opens its
 * database, before it serves anything (the server's network index keeps building in its worker).
 */
export function acquireOwnership(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const deadline = Date.now() + OWNER_WAIT_MS;
  let owner = currentOwner(dataDir);
  while (owner !== null && Date.now() < deadline) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, POLL_MS);
    owner = currentOwner(dataDir);
  }
  if (owner !== null) throw new Error(`the data directory ${dataDir} is in use by process ${owner}`);
  writeFileSync(lockPath(dataDir), String(process.pid), { mode: 0o600 });
  return () => {
    try {
      if (readFileSync(lockPath(dataDir), 'utf8').trim() === String(process.pid)) rmSync(lockPath(dataDir));
    } catch {
      /* gone */
    }
  };
}
