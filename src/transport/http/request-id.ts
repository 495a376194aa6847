import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * The one id of a request: in the X-Request-Id response header, every log line of the request, and any
 * internal_error the client is asked to quote. A caller's own X-Request-Id (a proxy's, a client's trace id) is
 * kept when it is 1-128 characters of letters, digits and `.:_+/=-` (what common proxies and tracers send);
 * anything else is replaced by a new UUID, so a header cannot inject text into logs or responses.
 */
const VALID = /^[A-Za-z0-9.:_+/=-]{1,128}$/;

export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && VALID.test(sent) ? sent : randomUUID();
}
