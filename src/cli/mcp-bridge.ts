import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { UsageError } from './command-line.ts';

/** The refusal the server sent (its JSON-RPC error's REST body), or the raw text. */
function refusal(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: string; data?: { error?: string } } };
    if (body.error?.message)
      return body.error.data?.error ? `${body.error.data.error}: ${body.error.message}` : body.error.message;
  } catch {
    /* not JSON: shown as sent */
  }
  return text.slice(0, 300);
}

function endpointOf(raw: string): URL {
  const url = URL.parse(raw);
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
    throw new UsageError(`--url must be an http:// or https:// URL, not "${raw}"`, 'mcp');
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/mcp';
  return url;
}

/** One ping with the key before any host message is read: an unreachable server or a refused key is one clear line, at once. */
async function check(url: URL, headers: Record<string, string>): Promise<string | null> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      signal: AbortSignal.timeout(10_000),
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'risk-api-bridge-check', method: 'ping' }),
    });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return `cannot reach ${url.href}: ${cause?.code ?? cause?.message ?? (e as Error).message}`;
  }
  const text = await res.text();
  if (res.status === 401) return `the server refused RISK_API_KEY (${refusal(text)})`;
  if (res.status === 404) return `no MCP endpoint at ${url.href} (404): check --url`;
  if (!res.ok) return `${url.href} answered ${res.status}: ${refusal(text)}`;
  return null;
}

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: string | number; method: string } =>
  'method' in m && 'id' in m;

/**
 * `risk-api mcp --url URL`: forwards every message from stdin to the HTTP endpoint and every answer back to
 * stdout. A message the server cannot take is answered to the host as a JSON-RPC error (so the host shows
 * why instead of waiting); a key refused mid-session (revoked) also ends the bridge with exit code 1.
 */
export async function runMcpBridge(baseUrl: string, apiKey: string | undefined): Promise<number> {
  if (!apiKey) {
    console.error(
      'error: set RISK_API_KEY to the API key the bridge should send (X-API-Key is never read from the command line)',
    );
    return 2;
  }
  const url = endpointOf(baseUrl);
  const headers = { authorization: `Bearer ${apiKey}` };
  const problem = await check(url, headers);
  if (problem) {
    console.error(`error: ${problem}`);
    return 1;
  }

  const http = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  const stdio = new StdioServerTransport();
  return new Promise<number>((resolve) => {
    let ended = false;
    const end = (code: number) => {
      if (ended) return;
      ended = true;
      void http
        .close()
        .finally(() => stdio.close())
        .finally(() => resolve(code));
    };
    http.onmessage = (message) => {
      // The negotiated version travels as MCP-Protocol-Version on later requests, as the SDK's own client sends it.
      const result = 'result' in message ? (message.result as { protocolVersion?: unknown }) : null;
      if (typeof result?.protocolVersion === 'string') http.setProtocolVersion(result.protocolVersion);
      void stdio.send(message);
    };
    http.onerror = () => {}; // each failure is reported once, where its message is sent (below)
    stdio.onmessage = (message) => {
      http.send(message).catch((e: unknown) => {
        const status = e instanceof StreamableHTTPError ? e.code : undefined;
        const text = (e as Error).message.replace(/^Streamable HTTP error: (Error POSTing to endpoint: )?/, '');
        const reason =
          status === undefined || status < 0
            ? `cannot reach ${url.href}: ${(e as Error).message}`
            : `${url.href} answered ${status}: ${refusal(text)}`;
        console.error(`error: ${reason}`);
        if (isRequest(message))
          void stdio.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: reason } });
        if (status === 401) end(1);
      });
    };
    stdio.onclose = () => end(0);
    stdio.onerror = (e) => console.error(`error: stdin: ${e.message}`);
    void stdio.start();
    process.stdin.once('end', () => end(0));
  });
}
