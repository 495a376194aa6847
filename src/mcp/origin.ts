import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.ts';

/**
 * DNS-rebinding protection, as the MCP transport specification asks: a browser page on another site must not
 * reach /mcp through a name that resolves to this server. Requests without an Origin header (agent hosts,
 * the stdio bridge, curl: not browsers) pass; a browser's Origin must be BASE_URL's own origin or one listed
 * in MCP_ALLOWED_ORIGINS. Unlike the control plane's check, an origin built from the request's own Host header
 * is NOT trusted: under DNS rebinding, Host and Origin both carry the attacker's name.
 */
export function originGuard(baseUrl: string, allowed: readonly string[]): (req: IncomingMessage) => void {
  const origins = new Set([new URL(baseUrl).origin, ...allowed]);
  return (req) => {
    const origin = req.headersDistinct.origin;
    if (origin === undefined) return;
    if (origin.length === 1 && origins.has(origin[0]!)) return;
    throw new AppError('origin_not_allowed',
      `Requests from the origin ${JSON.stringify(origin.join(', '))} are refused: /mcp accepts browser requests only from ${[...origins].join(', ')} `
      + '(set MCP_ALLOWED_ORIGINS to add one). Agent hosts and scripts send no Origin header.');
  };
}
