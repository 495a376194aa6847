import type { IncomingMessage } from 'node:http';
import { AppError } from '../../errors.ts';

/** What a browser client of /mcp may send across origins (its preflight asks), and read back. */
const PREFLIGHT = {
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': 'Content-Type, Accept, Authorization, X-API-Key, MCP-Protocol-Version, Last-Event-ID',
  'access-control-max-age': '600',
};

/**
 * DNS-rebinding protection, as the MCP transport specification asks: a browser page on another site must not
 * reach /mcp through a name that resolves to this server. Requests without an Origin header (agent hosts,
 * the stdio bridge, curl: not browsers) pass; a browser's Origin must be BASE_URL's own origin or one listed
 * in MCP_ALLOWED_ORIGINS. Unlike the control plane's check, an origin built from the request's own Host header
 * is NOT trusted: under DNS rebinding, Host and Origin both carry the attacker's name.
 *
 * Returns the CORS headers an allowed browser origin needs to read the answer (none without an Origin).
 */
export function originGuard(
  baseUrl: string,
  allowed: readonly string[],
): (req: IncomingMessage) => Record<string, string> {
  const origins = new Set([new URL(baseUrl).origin, ...allowed]);
  return (req) => {
    const origin = req.headersDistinct.origin;
    if (origin === undefined) return {};
    if (origin.length === 1 && origins.has(origin[0]!)) {
      return {
        'access-control-allow-origin': origin[0]!,
        vary: 'Origin',
        ...(req.method === 'OPTIONS' ? PREFLIGHT : {}),
      };
    }
    throw new AppError(
      'origin_not_allowed',
      `Requests from the origin ${JSON.stringify(origin.join(', '))} are refused: /mcp accepts browser requests only from ${[...origins].join(', ')} ` +
        '(set MCP_ALLOWED_ORIGINS to add one). Agent hosts and scripts send no Origin header.',
    );
  };
}
