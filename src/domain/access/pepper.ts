import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The server-side key for hashing API keys. API_KEY_PEPPER wins; otherwise one is generated
 * on first use and kept in `<DATA_DIR>/secrets/api-key-pepper` (mode 0600), so the CLI and
 * the server on one machine agree. Several machines sharing PostgreSQL must set
 * API_KEY_PEPPER to the same value.
 */
export function resolvePepper(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const dir = path.join(dataDir, 'secrets');
  const file = path.join(dir, 'api-key-pepper');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const pepper = randomBytes(32).toString('hex');
    try {
      writeFileSync(file, pepper, { mode: 0o600, flag: 'wx' });
      return pepper;
    } catch {
      return readFileSync(file, 'utf8').trim(); // another process won the race
    }
  }
}
