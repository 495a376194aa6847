import type { ServerResponse } from 'node:http';
import type { AppError } from '../../errors.ts';
import { sendJson } from '../rest/respond.ts';

/**
 * JSON-RPC error codes for failures of the HTTP exchange itself (before any message reaches the MCP server):
 * the body is not JSON (-32700 Parse error) or not a request object (-32600 Invalid Request); everything else
 * (key, origin, method, size, media type) is -32000, the implementation-defined server error the SDK's own
 * transport uses for the same refusals.
 */
const RPC_CODE: Partial<Record<AppError['code'], number>> = { invalid_json: -32700, invalid_request: -32600 };

/**
 * A refusal of the HTTP request as a JSON-RPC error response: the HTTP status and headers of the error's code
 * (as REST), `id: null` (the request was not read, or not as a message), and in `data` the REST error body,
 * so a client reads the same `error` code and `message` on every surface.
 */
export function sendRpcError(res: ServerResponse, error: AppError, headers: Record<string, string> = {}) {
  if (res.headersSent) { res.destroy(); return; }
  const extra: Record<string, string> = { ...error.headers, ...headers };
  if (error.code === 'payload_too_large') extra.connection = 'close'; // the rest of the body is not read
  sendJson(res, error.status, {
    jsonrpc: '2.0', id: null,
    error: { code: RPC_CODE[error.code] ?? -32000, message: error.message, data: error.toBody() },
  }, extra);
}
