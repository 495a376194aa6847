import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { StartError } from '../../platform/start/start-error.ts';

/**
 * The server-side key for hashing API keys. API_KEY_PEPPER wins; otherwise one is generated
 * on first use and kept in `<DATA_DIR>/secrets/api-key-pepper` (mode 0600), so the CLI and
 * the server on one machine agree. Several machines sharing PostgreSQL must set
 * API_KEY_PEPPER to the same value: establishPepper holds every process to the database's.
 */
export function resolvePepper(configured: string | undefined, dataDir: string): string {
  return configured ?? storedPepper(dataDir) ?? generatePepper(dataDir);
}

function pepperFile(dataDir: string): string {
  return path.join(dataDir, 'secrets', 'api-key-pepper');
}

function storedPepper(dataDir: string): string | null {
  try {
    return readFileSync(pepperFile(dataDir), 'utf8').trim();
  } catch {
    return null;
  }
}

function generatePepper(dataDir: string): string {
  mkdirSync(path.dirname(pepperFile(dataDir)), { recursive: true, mode: 0o700 });
  const pepper = randomBytes(32).toString('hex');
  try {
    writeFileSync(pepperFile(dataDir), pepper, { mode: 0o600, flag: 'wx' });
    return pepper;
  } catch {
    return readFileSync(pepperFile(dataDir), 'utf8').trim(); // another process won the race
  }
}

/** What the database keeps of a pepper: an HMAC keyed by it, which tells peppers apart and reveals nothing of one. */
export function pepperFingerprint(pepper: string): string {
  return createHmac('sha256', pepper).update('risk-api api-key pepper fingerprint v1').digest('hex');
}

/** The first 12 hex digits: enough to tell two peppers apart in a message. */
const shown = (fingerprint: string) => fingerprint.slice(0, 12);

/**
 * The pepper this process may serve with, held to the database's: the first process on a database records its
 * pepper's fingerprint; every later one (server or CLI) with a different pepper, or none where the database has one,
 * refuses to start. Without the check such a process ran, and every key it made or checked was refused elsewhere.
 * A pepper is generated (in DATA_DIR) only for a database that has none recorded yet.
 */
export async function establishPepper(
  prisma: PrismaClient,
  configured: string | undefined,
  dataDir: string,
): Promise<string> {
  const recorded = await prisma.pepperFingerprint.findUnique({ where: { id: 1 } });
  const pepper = configured ?? storedPepper(dataDir);
  if (!pepper && recorded)
    throw new StartError(
      'API_KEY_PEPPER',
      `is not set and ${pepperFile(dataDir)} does not exist, but this database's API keys are hashed with a pepper (fingerprint ${shown(recorded.fingerprint)})`,
      'set API_KEY_PEPPER to the value the service runs with, the same for every server and CLI on this database',
    );
  const mine = pepper ?? generatePepper(dataDir);
  const fingerprint = pepperFingerprint(mine);
  if (!recorded) await prisma.pepperFingerprint.createMany({ data: [{ id: 1, fingerprint }], skipDuplicates: true });
  // Read back: of two processes starting at once on a new database, the first insert holds.
  const holds = recorded ?? (await prisma.pepperFingerprint.findUniqueOrThrow({ where: { id: 1 } }));
  if (holds.fingerprint !== fingerprint)
    throw new StartError(
      'API_KEY_PEPPER',
      `${configured ? 'API_KEY_PEPPER' : `the pepper in ${pepperFile(dataDir)}`} (fingerprint ${shown(fingerprint)}) is not the pepper this database's API keys are hashed with (fingerprint ${shown(holds.fingerprint)}): every key would be refused`,
      'set API_KEY_PEPPER to the value the service runs with, the same for every server and CLI on this database (changing a pepper means issuing every key again)',
    );
  return mine;
}
