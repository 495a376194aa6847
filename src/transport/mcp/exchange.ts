import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestContext } from '../http/request-context.ts';

/** A message that passed the SDK's JSON-RPC schema is a request when it has both a method and an id. */
export function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message;
}

/**
 * The SDK Transport that carries every stateless HTTP exchange of this process to ONE SDK Server. Each request
 * is handed to the server under an id of this process's own (clients number their requests independently, so
 * theirs collide), and the server's response is returned to its exchange under the client's id. Built once:
 * the SDK's Protocol allocates a dozen maps and its handlers on construction, too much to pay per call
 * (docs/decisions/0012-mcp-one-sdk-server-behind-our-own-transport.md).
 *
 * Only requests are delivered. A client's notification or response (`notifications/initialized`,
 * `notifications/cancelled`, …) is acknowledged (HTTP 202) and dropped: in a stateless exchange it can refer to
 * nothing in flight here, and a cancellation naming one of this process's ids would abort another client's call.
 * The server's own notifications (progress, logs) have no stream to travel on in a JSON answer and are dropped
 * too, as the SDK's transport drops them in JSON mode.
 *
 * Why not the SDK's StreamableHTTPServerTransport: it runs each call through @hono/node-server's adaptation,
 * builds and reads back a web Response and validates the message with zod four more times (decision 0012 has the
 * measurement). The HTTP rules it applies before a message reaches
 * the server (Accept, protocol version, JSON-RPC framing with the SDK's own schema) are applied in http.ts.
 */
export class ExchangeMux implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private lastId = 0;
  private readonly waiting = new Map<
    number,
    { clientId: string | number; answer: (message: JSONRPCMessage) => void }
  >();

  async start() {}
  async close() {
    this.onclose?.();
  }

  async send(message: JSONRPCMessage) {
    // The server's own messages are well-formed: a response carries one of our ids and a result or an error.
    if (!('id' in message) || typeof message.id !== 'number' || !('result' in message || 'error' in message)) return;
    const exchange = this.waiting.get(message.id);
    if (!exchange) return;
    this.waiting.delete(message.id);
    message.id = exchange.clientId; // the response object is this exchange's alone
    exchange.answer(message);
  }

  /** One exchange: a request resolves with its response (under the client's id), anything else with null (HTTP 202). */
  exchange(message: JSONRPCMessage, ctx: RequestContext): Promise<JSONRPCMessage> | null {
    if (!isRequest(message)) return null;
    const id = ++this.lastId;
    return new Promise((answer) => {
      this.waiting.set(id, { clientId: message.id, answer });
      message.id = id; // the parsed message is this exchange's own copy
      // authInfo is the SDK's channel for who is calling into a handler: it carries this request's context.
      const authInfo: AuthInfo = { token: '', clientId: ctx.viewer?.keyPrefix ?? '', scopes: [], extra: { ctx } };
      this.onmessage?.(message, { authInfo });
    });
  }
}

/** The context an exchange attached to its request (see ExchangeMux.exchange). */
export function contextOf(extra: { authInfo?: AuthInfo | undefined }): RequestContext {
  const ctx = extra.authInfo?.extra?.ctx as RequestContext | undefined;
  if (!ctx) throw new Error('an MCP request reached a handler without its exchange context');
  return ctx;
}

/** Connects the process's one server to its exchange transport (the SDK sets the message handler synchronously). */
export function connectMux(server: Server): ExchangeMux {
  const mux = new ExchangeMux();
  void server.connect(mux);
  return mux;
}
