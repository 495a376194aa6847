/**
 * Whether an error means "the database could not be reached or dropped the connection" (PostgreSQL
 * restarted, failed over, or an administrator terminated the session) rather than a bug: such a
 * request is answered 503 database_unavailable with Retry-After, not 500 internal_error (src/transport/http/errors.ts).
 *
 * Recognised anywhere along the `cause` chain:
 * - Prisma connection codes: P1001 (can't reach), P1002 (timed out), P1008 (operation timed out),
 *   P1017 (server closed the connection), P2024 (timed out waiting for a pooled connection);
 * - a driver adapter error of kind ConnectionClosed / DatabaseNotReachable / SocketTimeout /
 *   TooManyConnections, or carrying a SQLSTATE of class 08 (connection exception), 57P01-57P03
 *   (administrator / crash shutdown, cannot connect now) or 53300 (too many connections);
 * - node-postgres' own connection failures, which reach us unwrapped.
 */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const ADAPTER_KINDS = new Set(['ConnectionClosed', 'DatabaseNotReachable', 'SocketTimeout', 'TooManyConnections']);
const SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;
const DRIVER_MESSAGES =
  /^(Connection terminated( unexpectedly)?|Client has encountered a connection error and is not queryable|timeout exceeded when trying to connect|connect (ECONNREFUSED|ETIMEDOUT)\b.*)$/;

type Cause = {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: { cause?: AdapterCause } };
  name?: unknown;
};
type AdapterCause = { kind?: unknown; originalCode?: unknown; code?: unknown };

export function isDatabaseUnavailable(error: unknown): boolean {
  let e = error as Cause | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 6; depth++, e = e.cause as Cause | undefined) {
    if (typeof e.code === 'string' && (PRISMA_CODES.has(e.code) || SQLSTATE.test(e.code))) return true;
    const adapter =
      e.meta?.driverAdapterError?.cause ??
      (e.name === 'DriverAdapterError' ? (e.cause as AdapterCause | undefined) : undefined);
    if (
      adapter &&
      (ADAPTER_KINDS.has(String(adapter.kind)) || SQLSTATE.test(String(adapter.originalCode ?? adapter.code ?? '')))
    )
      return true;
    if (typeof e.message === 'string' && DRIVER_MESSAGES.test(e.message)) return true;
  }
  return false;
}
