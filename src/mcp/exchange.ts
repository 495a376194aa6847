import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

/**
 * The SDK Transport of ONE stateless Streamable HTTP exchange answered in JSON: it hands the request's one
 * JSON-RPC message to the SDK server and resolves with the server's response to it. Anything else the server
 * sends meanwhile (a progress or log notification) has no stream to travel on in a JSON answer and is dropped,
 * as the SDK's own transport drops it in JSON mode.
 *
 * Why not the SDK's StreamableHTTPServerTransport: it runs each call through @hono/node-server's adaptation and
 * builds and reads back a web Response, and validated the same message with zod four more times; measured on one
 * server with the same load, that put `score_ip` at over twice REST `score`'s CPU per call. The HTTP rules it
 * applies before a message reaches the server (Accept, protocol version, JSON-RPC framing with the SDK's own
 * schema) are applied in http.ts instead.
 */
class ExchangeTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private settle!: (message: JSONRPCMessage) => void;
  readonly answered = new Promise<JSONRPCMessage>((resolve) => { this.settle = resolve; });

  constructor(private readonly id: string | number) {}

  async start() {}
  async close() { this.onclose?.(); }
  async send(message: JSONRPCMessage) {
    // The server's own messages are well-formed: a response is the one carrying our id and a result or an error.
    if ('id' in message && message.id === this.id && ('result' in message || 'error' in message)) this.settle(message);
  }
}

/** A message that passed the SDK's JSON-RPC schema is a request when it has both a method and an id. */
export function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message;
}

/** Delivers one checked message; a request resolves with its response, a notification or response with null (HTTP 202). */
export async function exchange(server: Server, message: JSONRPCMessage, extra: MessageExtraInfo): Promise<JSONRPCMessage | null> {
  const request = isRequest(message) ? message : null;
  const transport = new ExchangeTransport(request?.id ?? '');
  await server.connect(transport);
  transport.onmessage?.(message, extra);
  return request ? transport.answered : null;
}
