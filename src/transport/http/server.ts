import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '../../errors.ts';
import type { Logger } from '../../platform/log.ts';
import { requestIdOf } from './request-id.ts';
import { sendError } from './errors.ts';

/** What a route gets: the path without its query, and the request's one id. `false`: nothing here after all (404). */
export type Handler = (req: IncomingMessage, res: ServerResponse, path: string, requestId: string) => Promise<void | false>;
/** An exact path, or a prefix ending in `/*` (which also matches the prefix itself without the slash). */
export type Routes = ReadonlyArray<readonly [string, Handler]>;

export type HttpServer = {
  server: Server;
  /** Binds the port (0 = any free port) and returns the base URL actually served. */
  listen(port: number, host: string): Promise<string>;
  /** Refuse new requests (503, Connection: close), let in-flight ones finish up to the grace period, then close. */
  drain(): Promise<void>;
  /** True once drain() was called (readiness reports it). */
  draining(): boolean;
};

type Options = { log: Logger; requestTimeoutMs: number; shutdownGraceMs: number; notFound: (path: string) => string };

function matcher(routes: Routes): (path: string) => Handler | undefined {
  const exact = new Map<string, Handler>();
  const prefixes: Array<[string, Handler]> = [];
  for (const [pattern, handler] of routes) {
    if (pattern.endsWith('/*')) { prefixes.push([pattern.slice(0, -1), handler]); exact.set(pattern.slice(0, -2), handler); }
    else exact.set(pattern, handler);
  }
  return (path) => exact.get(path) ?? prefixes.find(([prefix]) => path.startsWith(prefix))?.[1];
}

/**
 * The service's one HTTP server: every request gets its id (X-Request-Id), an access log line, the route for its
 * path, and any error escaping a route rendered by the one error renderer under that id.
 */
export function createHttpServer(routes: Routes, opts: Options): HttpServer {
  const { log } = opts;
  const route = matcher(routes);
  let draining = false;

  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string) {
    const started = performance.now();
    res.setHeader('x-request-id', requestId);
    const path = (req.url ?? '/').split('?', 1)[0]!;
    if (log.enabled('info')) {
      res.on('finish', () => log.info('request', {
        requestId, method: req.method, path, status: res.statusCode, ms: Math.round((performance.now() - started) * 100) / 100,
      }));
    }
    if (draining) throw new AppError('service_unavailable', 'The server is shutting down; retry on another instance.', undefined, undefined, { connection: 'close' });
    const handler = route(path);
    if (!handler || (await handler(req, res, path, requestId)) === false) throw new AppError('not_found', opts.notFound(path));
  }

  // A request must have arrived whole within requestTimeoutMs (checked every second): a client that stalls
  // mid-body is answered 408 and disconnected. It also bounds a Node quirk found by fuzzing: a malformed
  // chunked body after `Connection: Upgrade` raises no parse error, so the request would never end.
  const server = createServer({
    keepAliveTimeout: 65_000,
    requestTimeout: opts.requestTimeoutMs,
    headersTimeout: Math.min(60_000, opts.requestTimeoutMs),
    connectionsCheckingInterval: 1_000,
  }, (req, res) => {
    const requestId = requestIdOf(req);
    handle(req, res, requestId).catch((e) => sendError(res, e, requestId, log));
  });

  return {
    server,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const address = server.address() as AddressInfo;
          const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${shown}:${address.port}`);
        });
      });
    },
    draining: () => draining,
    async drain() {
      draining = true;
      if (!server.listening) return;
      // server.close() stops accepting at once and calls back when the last connection ends.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections turn idle as their last response ends: close them as they do.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), opts.shutdownGraceMs);
      grace.unref();
      await closed;
      clearInterval(sweep);
      clearTimeout(grace);
    },
  };
}
