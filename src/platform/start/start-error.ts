/**
 * A start-up failure the operator can fix: one line naming the setting at fault and what to do, printed without a
 * stack (a stack tells a newcomer nothing about a port in use or a database that is not running).
 */
export class StartError extends Error {
  constructor(
    readonly setting: string,
    problem: string,
    readonly fix: string,
  ) {
    super(`${setting}: ${problem}. Fix: ${fix}`);
    this.name = 'StartError';
  }
}

type SysError = Error & { code?: string; address?: string; port?: number };

/** Where the service connects: the host and port of a postgresql:// or redis:// URL, credentials left out. */
export function endpointOf(url: string, defaultPort: number): { host: string; port: number } | null {
  try {
    const u = new URL(url);
    const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!host) return null; // a Unix socket (?host=/run/postgresql): nothing to probe by TCP
    return { host, port: Number(u.port || defaultPort) };
  } catch {
    return null;
  }
}

/** The listen failure of PORT/HOST as a StartError, or null when it is something else. */
export function listenFailure(e: unknown, port: number, host: string): StartError | null {
  const code = (e as SysError)?.code;
  if (code === 'EADDRINUSE')
    return new StartError(
      'PORT',
      `${host}:${port} is already in use by another process`,
      `stop that process, or start on a free port: PORT=${port === 65535 ? 8081 : port + 1} npm start`,
    );
  if (code === 'EACCES')
    return new StartError(
      'PORT',
      `this user may not listen on port ${port}`,
      'use a port above 1023 (PORT=8080), or put a proxy in front on the low port',
    );
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new StartError(
      'HOST',
      `${host} is not an address of this machine`,
      'set HOST to one of its addresses, 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)',
    );
  return null;
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
]);

/** A failure to reach or use DATABASE_URL as a StartError, or null when it is something else. */
export function databaseFailure(e: unknown, url: string): StartError | null {
  const err = e as SysError;
  const at = endpointOf(url, 5432);
  const where = at ? `${at.host}:${at.port}` : 'the configured socket';
  if (err?.code && UNREACHABLE.has(err.code))
    return new StartError(
      'DATABASE_URL',
      `PostgreSQL at ${where} cannot be reached (${err.code})`,
      'start PostgreSQL (pg_isready shows when it is up) or correct DATABASE_URL; unset it for the embedded database',
    );
  // PostgreSQL's own refusals: https://www.postgresql.org/docs/current/errcodes-appendix.html
  if (err?.code === '3D000')
    return new StartError(
      'DATABASE_URL',
      `PostgreSQL at ${where} has no such database (${err.message})`,
      'create it (createdb NAME) or name an existing database in DATABASE_URL',
    );
  if (err?.code === '28P01' || err?.code === '28000')
    return new StartError(
      'DATABASE_URL',
      `PostgreSQL at ${where} refused the credentials (${err.message})`,
      'correct the user and password in DATABASE_URL',
    );
  return null;
}

/** A Redis that cannot be reached at start, as a StartError. */
export function redisFailure(url: string, detail: string): StartError {
  const at = endpointOf(url, 6379);
  return new StartError(
    'REDIS_URL',
    `Redis at ${at ? `${at.host}:${at.port}` : 'the configured address'} cannot be reached (${detail})`,
    'start Redis (redis-cli ping answers PONG when it is up) or correct REDIS_URL; unset it for the embedded counters',
  );
}
