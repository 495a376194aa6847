import {
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../../errors.ts';
import { requestContext, type ApiDeps } from '../http/request-context.ts';
import { readJsonObject } from '../http/body.ts';
import { sendJson } from '../http/send.ts';
import { sendError } from '../http/errors.ts';
import type { Handler } from '../http/server.ts';
import { authenticate } from './auth.ts';
import { originGuard } from './origin.ts';
import { mcpServer } from './server.ts';
import { connectMux, isRequest } from './exchange.ts';

/**
 * POST /mcp: the MCP Streamable HTTP transport, stateless (no session: any process behind a balancer answers any
 * call), every answer one JSON body (the transport's `application/json` response; no SSE stream). In order:
 * Origin (403; an allowed browser origin gets CORS headers, and its preflight 204) → method (GET and DELETE are
 * 405: a stateless server offers no stream to open nor session to end, as the transport specification allows) →
 * API key (401) → Accept must list application/json and
 * text/event-stream (406) → the body as REST reads one (415, 413, 400) → one JSON-RPC message, checked with the
 * SDK's own schema (400; batches, dropped by the 2025-06-18 protocol, are refused) → MCP-Protocol-Version, when
 * sent, one the SDK supports (400) → the process's SDK server answers (exchange.ts); a notification alone gets 202.
 */
export function createMcpHandler(deps: ApiDeps): Handler {
  const checkOrigin = originGuard(deps.config.baseUrl, deps.config.mcpAllowedOrigins);
  const mux = connectMux(mcpServer(deps.log));
  return async function handleMcp(req, res, _path, requestId) {
    try {
      const cors = checkOrigin(req);
      for (const [name, value] of Object.entries(cors)) res.setHeader(name, value); // on refusals too, so a browser can read them
      if (req.method === 'OPTIONS' && cors['access-control-allow-origin']) {
        res.writeHead(204).end();
        return;
      } // a CORS preflight
      if (req.method !== 'POST') {
        throw new AppError(
          'method_not_allowed',
          'This MCP server is stateless: send every JSON-RPC message as a POST (it opens no server-sent event stream and keeps no session to delete).',
          undefined,
          undefined,
          { allow: 'POST' },
        );
      }
      const viewer = await authenticate(req, deps.verifier);
      const accept = req.headers.accept ?? '';
      if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
        throw new AppError(
          'not_acceptable',
          'The Accept header must list both application/json and text/event-stream (MCP Streamable HTTP).',
        );
      }
      const checked = JSONRPCMessageSchema.safeParse(await readJsonObject(req, deps.config.maxBodyBytes));
      if (!checked.success) {
        throw new AppError('invalid_request', 'The body is not a JSON-RPC 2.0 request, notification or response.', [
          { field: '(body)', message: 'must be one JSON-RPC 2.0 message' },
        ]);
      }
      const message = checked.data;
      const version = req.headers['mcp-protocol-version'] as string | undefined; // one value: Node joins repeated custom headers
      if (
        version !== undefined &&
        !(isRequest(message) && message.method === 'initialize') &&
        !SUPPORTED_PROTOCOL_VERSIONS.includes(version)
      ) {
        throw new AppError(
          'invalid_request',
          `Unsupported MCP-Protocol-Version ${version}; this server speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}.`,
          [{ field: 'MCP-Protocol-Version', message: 'unsupported protocol version' }],
        );
      }
      const badParams = invalidToolArguments(message);
      if (badParams) {
        sendJson(res, 200, badParams);
        return;
      }
      const answer = mux.exchange(
        message,
        requestContext(deps, req, requestId, viewer, { via: 'mcp', surface: 'agent_score' }),
      );
      if (answer) sendJson(res, 200, await answer);
      else res.writeHead(202).end();
    } catch (e) {
      sendError(res, e, requestId, deps.log, 'jsonrpc'); // the refusal as a JSON-RPC error, REST's body in its data
    }
  };
}

/**
 * A tools/call whose `arguments` is not an object is invalid params (-32602, as JSON-RPC defines it): the
 * SDK's own check of the request threw a plain validation error there, which it answers as an internal
 * error (-32603), telling the client the fault was ours.
 */
function invalidToolArguments(message: JSONRPCMessage): object | null {
  if (!isRequest(message) || message.method !== 'tools/call') return null;
  const args = (message.params as { arguments?: unknown } | undefined)?.arguments;
  if (args === undefined || (args !== null && typeof args === 'object' && !Array.isArray(args))) return null;
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: {
      code: -32602,
      message: "Invalid params: tools/call `arguments` must be an object of the tool's arguments.",
    },
  };
}
