import type { IncomingMessage } from 'node:http';
import { AppError } from '../../errors.ts';
import { apiKeyHeaders, requireApiKey, verifiedViewer } from '../http/api-key.ts';
import type { KeyVerifier, Viewer } from '../../domain/access/verifier.ts';

const ACCEPTED = 'Send the API key in the X-API-Key header or as an Authorization: Bearer <API_KEY> header.';

/**
 * The caller of one /mcp request: the same headers, verifier and revocation bound (KEY_CACHE_TTL_MS) as REST.
 * A refusal names both accepted headers (REST's missing-key message already does; the others get the
 * sentence added) and carries the WWW-Authenticate challenge HTTP asks of a 401.
 */
export async function authenticate(req: IncomingMessage, verifier: KeyVerifier): Promise<Viewer> {
  try {
    return await verifiedViewer(verifier, req, requireApiKey(...apiKeyHeaders(req)));
  } catch (e) {
    if (!(e instanceof AppError) || (e.status !== 401 && e.code !== 'conflicting_api_keys')) throw e;
    const message = e.message.includes('X-API-Key') ? e.message : `${e.message} ${ACCEPTED}`;
    const challenge =
      e.code === 'missing_api_key' ? 'Bearer realm="risk-api"' : 'Bearer realm="risk-api", error="invalid_token"';
    throw new AppError(e.code, message, e.details, e.extra, {
      ...e.headers,
      ...(e.status === 401 ? { 'www-authenticate': challenge } : {}),
    });
  }
}
