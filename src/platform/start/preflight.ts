import net from 'node:net';
import type { Config } from '../../config.ts';
import { databaseFailure, endpointOf, listenFailure, redisFailure, StartError } from './start-error.ts';

const PROBE_TIMEOUT_MS = 2_000;

/**
 * The cheap checks of a start, run before anything heavy loads (the network data alone takes seconds): the port is
 * free, PostgreSQL lets this user into this database, and Redis accepts a connection. A failure is known in
 * milliseconds instead of after the whole start-up; the real listen and connections still report their own failures
 * the same way (something can change between the check and the use).
 */
export async function preflight(config: Config): Promise<StartError | null> {
  const checks = await Promise.all([
    portFree(config.port, config.host), // port 0 still checks HOST
    config.databaseUrl ? databaseOpens(config.databaseUrl) : null,
    config.redisUrl
      ? reachable(config.redisUrl, 6379, (e) =>
          redisFailure(config.redisUrl!, (e as { code?: string }).code ?? 'error'),
        )
      : null,
  ]);
  return checks.find((c) => c !== null) ?? null;
}

/** Binds and releases the port at once: what the server's own listen would meet. */
function portFree(port: number, host: string): Promise<StartError | null> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', (e) => resolve(listenFailure(e, port, host)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(null)));
  });
}

/** One session with PostgreSQL, so a wrong password or a missing database is caught too, not only a closed port. */
async function databaseOpens(url: string): Promise<StartError | null> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  client.on('error', () => {}); // a drop after connecting is not a start failure
  try {
    await client.connect();
    return null;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // pg reports a connection that never completed in words, without a code.
    const code = /timeout/i.test(message) ? 'ETIMEDOUT' : /terminated/i.test(message) ? 'ECONNRESET' : undefined;
    return (
      databaseFailure(code ? Object.assign(new Error(message), { code }) : e, url) ??
      new StartError('DATABASE_URL', `PostgreSQL refused the connection (${message})`, 'correct DATABASE_URL')
    );
  } finally {
    await client.end().catch(() => {});
  }
}

/** Opens and closes one TCP connection to the URL's host and port; a Unix socket is left to the real connection. */
function reachable(
  url: string,
  defaultPort: number,
  failure: (e: unknown) => StartError | null,
): Promise<StartError | null> {
  const at = endpointOf(url, defaultPort);
  if (!at) return Promise.resolve(null);
  return new Promise((resolve) => {
    const socket = net.connect({ host: at.host, port: at.port });
    socket.setTimeout(PROBE_TIMEOUT_MS, () =>
      socket.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })),
    );
    socket.once('connect', () => {
      socket.destroy();
      resolve(null);
    });
    socket.once('error', (e) => resolve(failure(e)));
  });
}
