import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, BlockList } from 'node:net';
import { AppError } from '../../errors.ts';
import type { Logger } from '../../platform/log.ts';
import type { Metrics } from '../../platform/metrics.ts';
import { requestIdOf } from './request-id.ts';
import { traceParentOf } from './trace-context.ts';
import { noteRequest, notesOf } from './request-notes.ts';
import { clientIp } from './client-ip.ts';
import { sendError } from './errors.ts';

/** What a route gets: the path without its query, and the request's one id. `false`: nothing here after all (404). */
export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  requestId: string,
  // biome-ignore lint/suspicious/noConfusingVoidType: a route ends by answering (void) or declines with false
) => Promise<void | false>;
/** An exact path, or a prefix ending in `/*` (which also matches the prefix itself without the slash). */
export type Routes = ReadonlyArray<readonly [string, Handler]>;

export type HttpServer = {
  server: Server;
  /** Binds the port (0 = any free port) and returns the base URL actually served. */
  listen(port: number, host: string): Promise<string>;
  /** Readiness withdrawn (/readyz answers 503) while every request is still served: the first step of a shutdown. */
  withdraw(): void;
  /** Refuse new requests (503, Connection: close), let in-flight ones finish up to the grace period, then close. */
  drain(): Promise<void>;
  /** False once withdraw() or drain() was called (readiness reports it). */
  ready(): boolean;
};

type Options = {
  log: Logger;
  requestTimeoutMs: number;
  shutdownGraceMs: number;
  notFound: (path: string) => string;
  /** Proxies whose X-Forwarded-For names the client on the access line (client-ip.ts). */
  proxies: BlockList | null;
  metrics?: Metrics | undefined;
};

/** The route label of a request no route took: one value, whatever its path. */
const UNMATCHED = 'unmatched';

function matcher(routes: Routes): (path: string) => { pattern: string; handler: Handler } | undefined {
  const exact = new Map<string, { pattern: string; handler: Handler }>();
  const prefixes: Array<[string, { pattern: string; handler: Handler }]> = [];
  for (const [pattern, handler] of routes) {
    if (pattern.endsWith('/*')) {
      prefixes.push([pattern.slice(0, -1), { pattern, handler }]);
      exact.set(pattern.slice(0, -2), { pattern, handler });
    } else exact.set(pattern, { pattern, handler });
  }
  return (path) => exact.get(path) ?? prefixes.find(([prefix]) => path.startsWith(prefix))?.[1];
}

/**
 * The service's one HTTP server: every request gets its id (X-Request-Id; a valid W3C traceparent is echoed), the
 * route for its path, any error escaping a route rendered by the one error renderer under that id, and, when it
 * ends, one access log line and one observation of http_request_duration_seconds by route pattern and status.
 */
export function createHttpServer(routes: Routes, opts: Options): HttpServer {
  const { log, metrics } = opts;
  const route = matcher(routes);
  let draining = false;
  let withdrawn = false;

  function finished(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    path: string,
    traceId: string | undefined,
    started: number,
  ) {
    const seconds = (performance.now() - started) / 1000;
    // 'close' also ends a response cut short (the client hung up, or the grace period ran out): no status was sent.
    const status = res.writableFinished ? res.statusCode : 'aborted';
    const { route: pattern = UNMATCHED, workspaceId, keyPrefix, error } = notesOf(req);
    metrics?.httpRequest(pattern, req.method, status, seconds);
    if (!log.enabled('info')) return;
    log.info('request', {
      requestId,
      method: req.method,
      route: pattern,
      path,
      status,
      ...(error ? { error } : {}),
      ms: Math.round(seconds * 100_000) / 100,
      // a connection closed mid-body (a 413 while the client still sends) has already let go of its socket
      clientIp: clientIp(req.socket?.remoteAddress, req.headers['x-forwarded-for'], opts.proxies),
      ...(workspaceId !== undefined ? { workspaceId } : {}),
      ...(keyPrefix ? { keyPrefix } : {}),
      ...(traceId ? { traceId } : {}),
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string) {
    const started = performance.now();
    res.setHeader('x-request-id', requestId);
    const trace = traceParentOf(req);
    if (trace) res.setHeader('traceparent', trace.header);
    const path = (req.url ?? '/').split('?', 1)[0]!;
    const found = route(path);
    noteRequest(req, found ? { route: found.pattern, arrivedAt: started } : { arrivedAt: started });
    res.once('close', () => finished(req, res, requestId, path, trace?.traceId, started));
    if (draining)
      throw new AppError(
        'service_unavailable',
        'The server is shutting down; retry on another instance.',
        undefined,
        undefined,
        { connection: 'close' },
      );
    if (!found || (await found.handler(req, res, path, requestId)) === false)
      throw new AppError('not_found', opts.notFound(path));
  }

  // A request must have arrived whole within requestTimeoutMs (checked every second): a client that stalls
  // mid-body is answered 408 and disconnected. It also bounds a Node quirk found by fuzzing: a malformed
  // chunked body after `Connection: Upgrade` raises no parse error, so the request would never end.
  const server = createServer(
    {
      keepAliveTimeout: 65_000,
      requestTimeout: opts.requestTimeoutMs,
      headersTimeout: Math.min(60_000, opts.requestTimeoutMs),
      connectionsCheckingInterval: 1_000,
    },
    (req, res) => {
      const requestId = requestIdOf(req);
      handle(req, res, requestId).catch((e) => sendError(res, e, requestId, log));
    },
  );

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
    withdraw: () => {
      withdrawn = true;
    },
    ready: () => !withdrawn && !draining,
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
