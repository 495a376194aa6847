import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * CORS on /graphql. API keys travel in headers (X-API-Key, Authorization), never in cookies, so a
 * browser never needs credentialed CORS here: Access-Control-Allow-Credentials is never sent, and a
 * hostile page can only use keys it already holds. Without CORS_ORIGINS no origin is granted
 * anything (the browser blocks other sites' pages from calling /graphql); with it, exactly the
 * listed origins are, each answered with its own origin (never "*", never "null", never a reflection
 * of an unlisted Origin).
 */
const METHODS = 'GET, POST';
const ALLOWED_HEADERS = 'content-type, x-api-key, authorization, idempotency-key';
const EXPOSED_HEADERS = 'retry-after, x-request-id';
const PREFLIGHT_MAX_AGE_S = '600';

export type GraphQLCors = {
  /** Sets the CORS headers of this request's answer; answers a preflight (OPTIONS) itself and returns true then. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
};

export function graphqlCors(origins: readonly string[]): GraphQLCors {
  const allowed = new Set(origins);
  return {
    handle(req, res) {
      const origin = req.headers.origin;
      // The answer depends on Origin once any origin may be granted: a shared cache must not hand one origin's answer to another.
      if (allowed.size) res.setHeader('vary', 'Origin');
      const granted = typeof origin === 'string' && allowed.has(origin);
      if (req.method === 'OPTIONS') {
        const headers: Record<string, string> = { allow: 'GET, POST, OPTIONS', 'content-length': '0' };
        if (granted && req.headers['access-control-request-method']) {
          Object.assign(headers, {
            'access-control-allow-origin': origin,
            'access-control-allow-methods': METHODS,
            'access-control-allow-headers': ALLOWED_HEADERS,
            'access-control-max-age': PREFLIGHT_MAX_AGE_S,
          });
        }
        res.writeHead(204, headers);
        res.end();
        return true;
      }
      if (granted) {
        res.setHeader('access-control-allow-origin', origin);
        res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
      }
      return false;
    },
  };
}
