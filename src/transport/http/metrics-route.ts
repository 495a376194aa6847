import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../../errors.ts';
import type { Metrics } from '../../platform/metrics.ts';
import type { Handler } from './server.ts';

/**
 * GET /metrics: the Prometheus text exposition (platform/metrics.ts). Without METRICS_TOKEN only a direct loopback
 * client is answered (a scraper on the same machine); a request carrying a proxy's forwarding header is refused
 * too, so a reverse proxy on the same machine cannot publish the page by forwarding every path
 * (metrics_loopback_only, 403). With METRICS_TOKEN set, any client that sends `Authorization: Bearer <token>` is
 * answered and every other one refused (metrics_token_invalid, 401), the token compared in constant time.
 */
export function metricsRoute(metrics: Metrics, token: string | undefined): Handler {
  const expected = token === undefined ? null : digest(token);
  return async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      throw new AppError('method_not_allowed', 'Use GET for /metrics.', undefined, undefined, { allow: 'GET, HEAD' });
    if (expected) {
      if (!sameToken(bearerOf(req), expected))
        throw new AppError('metrics_token_invalid', undefined, undefined, undefined, {
          'www-authenticate': 'Bearer realm="metrics"',
        });
    } else if (!isLoopback(req.socket.remoteAddress) || isForwarded(req)) {
      throw new AppError('metrics_loopback_only');
    }
    const { type, text } = await metrics.exposition().catch((e: unknown) => {
      throw new AppError(
        'service_unavailable',
        `The metrics of every worker could not be gathered (${(e as Error).message}); retry.`,
        undefined,
        undefined,
        { 'retry-after': '1' },
      );
    });
    res.writeHead(200, {
      'content-type': type,
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : text);
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Digests have one length, so timingSafeEqual compares them in the same time whatever was sent. */
function sameToken(sent: string | null, expected: Buffer): boolean {
  return timingSafeEqual(digest(sent ?? ''), expected) && sent !== null;
}

function bearerOf(req: IncomingMessage): string | null {
  const values = req.headersDistinct.authorization;
  if (values?.length !== 1) return null;
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(values[0]!)?.[1] ?? null;
}

function isLoopback(address: string | undefined): boolean {
  const v4 = address?.startsWith('::ffff:') ? address.slice(7) : address;
  return v4 === '::1' || /^127(\.\d{1,3}){3}$/.test(v4 ?? '');
}

function isForwarded(req: IncomingMessage): boolean {
  return ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip'].some((h) => req.headers[h] !== undefined);
}
