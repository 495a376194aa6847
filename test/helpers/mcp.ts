import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The SDK's own client over Streamable HTTP, sending the key as an agent host would. */
export async function mcpClient(baseUrl: string, key: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'risk-api-tests', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: { 'x-api-key': key, ...headers } },
    }),
  );
  return client;
}

/** A tools/call whose structuredContent is returned (typed loosely, as tests read it field by field). */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ result: CallToolResult; body: any }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { result, body: result.structuredContent };
}

/** One raw POST /mcp (for what a client library would never send: no key, a foreign Origin, bad framing). */
export async function rawMcp(baseUrl: string, body: unknown, headers: Record<string, string> = {}, method = 'POST') {
  const res = await fetch(`${baseUrl}/mcp`, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    ...(method === 'POST' ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep the text for the failure message */
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

export const toolsCall = (name: string, args: Record<string, unknown>, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
