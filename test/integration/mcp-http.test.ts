import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { call, mcpClient, rawMcp, toolsCall } from '../helpers/mcp.ts';

/**
 * /mcp at the HTTP level: the key (missing, bad, revoked → 401 JSON-RPC errors naming both headers), the Origin
 * check (DNS-rebinding protection), the stateless methods, and the framing refusals — each a JSON-RPC error with
 * the REST error body in `data` and nothing counted.
 */
const ALLOWED = 'https://agent.example.com';

describe(`MCP over HTTP: keys, origins and framing (${backendName})`, () => {
  let s: TestServer;
  let key: { prefix: string; secret: string };
  beforeAll(async () => {
    s = await startTestServer({ MCP_ALLOWED_ORIGINS: ` ${ALLOWED} , http://localhost:5173` });
    key = await s.createKey('mcp-http', { tier: 'developer' });
  });
  afterAll(() => s?.close());

  const ping = { jsonrpc: '2.0', id: 7, method: 'ping' };
  const rpcError = (body: any, code: string) =>
    expect(body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: expect.any(Number), data: { ok: false, error: code } },
    });

  it('refuses a call without a key: 401, a JSON-RPC error naming both headers, a Bearer challenge', async () => {
    const r = await rawMcp(s.url, ping);
    expect(r.status).toBe(401);
    rpcError(r.body, 'missing_api_key');
    expect(r.body.error.code).toBe(-32000);
    expect(r.body.error.message).toContain('X-API-Key');
    expect(r.body.error.message).toContain('Authorization: Bearer');
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="risk-api"');
    // The SDK's client fails to connect, with the status and our error.
    await expect(mcpClient(s.url, '')).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining('missing_api_key'),
    });
  });

  it.each([
    ['unknown', { 'x-api-key': `rk_AAAAAAAA_${'a'.repeat(40)}` }, 'invalid_api_key'],
    ['malformed Bearer', { authorization: 'Basic abc' }, 'invalid_api_key'],
  ])('refuses an %s key with 401 naming both headers', async (_label, headers, code) => {
    const r = await rawMcp(s.url, ping, headers);
    expect(r.status).toBe(401);
    rpcError(r.body, code);
    expect(r.body.error.message).toMatch(/X-API-Key.*Authorization: Bearer/);
    expect(r.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('accepts the key as X-API-Key or as Bearer, and refuses two different keys (400 conflicting_api_keys)', async () => {
    expect((await rawMcp(s.url, ping, { 'x-api-key': key.secret })).body).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: {},
    });
    expect((await rawMcp(s.url, ping, { authorization: `Bearer ${key.secret}` })).status).toBe(200);
    const other = await s.createKey('mcp-http', { name: 'second' });
    const r = await rawMcp(s.url, ping, { 'x-api-key': key.secret, authorization: `Bearer ${other.secret}` });
    expect(r.status).toBe(400);
    rpcError(r.body, 'conflicting_api_keys');
  });

  it('stops a revoked key within the same bound as REST (KEY_CACHE_TTL_MS), mid-session too', async () => {
    const doomed = await s.createKey('mcp-http', { name: 'doomed' });
    const client = await mcpClient(s.url, doomed.secret);
    expect((await call(client, 'get_quota')).body.ok).toBe(true);
    await s.app.db.prisma.apiKey.update({ where: { prefix: doomed.prefix }, data: { revokedAt: new Date() } });
    s.app.verifier.invalidate(doomed.prefix); // the TTL passing, without sleeping: this process re-reads the row
    await expect(call(client, 'get_quota')).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining('invalid_api_key'),
    });
    const r = await rawMcp(s.url, ping, { 'x-api-key': doomed.secret });
    expect(r.status).toBe(401);
    rpcError(r.body, 'invalid_api_key');
  });

  it("refuses a browser Origin other than BASE_URL's and MCP_ALLOWED_ORIGINS (403), before reading the key", async () => {
    for (const origin of [
      'https://evil.example',
      'null',
      `http://127.0.0.1:${new URL(s.url).port}`,
      `${ALLOWED}:8443`,
    ]) {
      const r = await rawMcp(s.url, ping, { 'x-api-key': key.secret, origin });
      expect(r.status, origin).toBe(403);
      rpcError(r.body, 'origin_not_allowed');
      expect(r.body.error.message).toContain(ALLOWED);
    }
    expect((await rawMcp(s.url, ping, { origin: 'https://evil.example' })).status).toBe(403); // no key: still the Origin first
    const client = await mcpClient(s.url, key.secret, { origin: ALLOWED });
    expect((await call(client, 'get_quota')).body.ok).toBe(true);
    await client.close();
    expect((await rawMcp(s.url, ping, { 'x-api-key': key.secret, origin: 'http://localhost:5173' })).status).toBe(200);
    expect((await rawMcp(s.url, ping, { 'x-api-key': key.secret, origin: s.app.services.baseUrl })).status).toBe(200);
  });

  it('lets an allowed browser origin through CORS (preflight and answer), and no other', async () => {
    const preflight = await fetch(`${s.url}/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: ALLOWED,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/X-API-Key/);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
    const answer = await rawMcp(s.url, ping, { 'x-api-key': key.secret, origin: ALLOWED });
    expect([answer.status, answer.headers.get('access-control-allow-origin'), answer.headers.get('vary')]).toEqual([
      200,
      ALLOWED,
      'Origin',
    ]);
    const refusedKey = await rawMcp(s.url, ping, { origin: ALLOWED });
    expect([refusedKey.status, refusedKey.headers.get('access-control-allow-origin')]).toEqual([401, ALLOWED]); // readable by the page
    const foreign = await fetch(`${s.url}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect([foreign.status, foreign.headers.get('access-control-allow-origin')]).toEqual([403, null]);
    expect(
      (await rawMcp(s.url, ping, { 'x-api-key': key.secret })).headers.get('access-control-allow-origin'),
    ).toBeNull();
  });

  it('answers GET and DELETE with 405 Allow: POST (stateless: no event stream, no session)', async () => {
    for (const method of ['GET', 'DELETE', 'PUT']) {
      const r = await rawMcp(s.url, null, { 'x-api-key': key.secret, accept: 'text/event-stream' }, method);
      expect(r.status, method).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
      rpcError(r.body, 'method_not_allowed');
    }
  });

  it('refuses what is not one JSON-RPC message with the right JSON-RPC code, counting nothing', async () => {
    const h = { 'x-api-key': key.secret };
    const notJson = await rawMcp(s.url, '{"jsonrpc":', h);
    expect([notJson.status, notJson.body.error.code, notJson.body.error.data.error]).toEqual([
      400,
      -32700,
      'invalid_json',
    ]);
    const notRpc = await rawMcp(s.url, { hello: 'world' }, h);
    expect([notRpc.status, notRpc.body.error.code, notRpc.body.error.data.error]).toEqual([
      400,
      -32600,
      'invalid_request',
    ]);
    const batch = await rawMcp(s.url, [ping, ping], h);
    expect([batch.status, batch.body.error.code]).toEqual([400, -32600]);
    const tooBig = await rawMcp(s.url, toolsCall('rate_ip', { ip: '1.1.1.1', rating: 0, note: 'x'.repeat(70_000) }), h);
    expect([tooBig.status, tooBig.body.error.data.error]).toEqual([413, 'payload_too_large']);
    const wrongType = await rawMcp(s.url, JSON.stringify(ping), { ...h, 'content-type': 'text/plain' });
    expect([wrongType.status, wrongType.body.error.data.error]).toEqual([415, 'unsupported_media_type']);
    const noSse = await rawMcp(s.url, ping, { ...h, accept: 'application/json' });
    expect([noSse.status, noSse.body.error.data.error]).toEqual([406, 'not_acceptable']);
    const version = await rawMcp(s.url, ping, { ...h, 'mcp-protocol-version': '1999-01-01' });
    expect([version.status, version.body.error.data.error]).toEqual([400, 'invalid_request']);
    expect(version.body.error.message).toContain('2025-06-18');
    const note = await rawMcp(s.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, h);
    expect([note.status, note.body]).toEqual([202, '']);
    const unknown = await rawMcp(s.url, { jsonrpc: '2.0', id: 3, method: 'resources/list' }, h);
    expect(unknown.body).toMatchObject({ id: 3, error: { code: -32601 } });
    const client = await mcpClient(s.url, key.secret);
    expect((await call(client, 'get_quota')).body.quotas.agent.used_today).toBe(0);
    await client.close();
  });

  it('answers each of many concurrent clients that reuse the same request id with its own answer; cancellations touch nothing', async () => {
    const a = await s.createKey('mcp-http-a', { tier: 'enterprise', name: 'a' });
    const b = await s.createKey('mcp-http-b', { tier: 'enterprise', name: 'b' });
    // Enterprise keys: ten calls per key at once stay under the burst limit.
    const calls = Array.from({ length: 20 }, (_, i) => {
      const k = i % 2 ? a : b;
      return rawMcp(s.url, toolsCall('score_ip', { ip: `192.0.2.${i + 1}` }, 1), { 'x-api-key': k.secret }).then(
        (r) => ({ r, k, ip: `192.0.2.${i + 1}` }),
      );
    });
    // Cancellations a client could send, naming any id: acknowledged and never delivered.
    const cancels = Array.from({ length: 50 }, (_, i) =>
      rawMcp(
        s.url,
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: i } },
        { 'x-api-key': a.secret },
      ),
    );
    for (const c of await Promise.all(cancels)) expect(c.status).toBe(202);
    for (const { r, k, ip } of await Promise.all(calls)) {
      expect(r.body.id).toBe(1);
      expect(r.body.result.structuredContent).toMatchObject({ ok: true, query: { ip }, api_key: { prefix: k.prefix } });
    }
  });

  it('answers a stateless tools/call without an initialize round trip, in JSON', async () => {
    const r = await rawMcp(s.url, toolsCall('get_dimensions', { ip: '1.1.1.1' }, 'abc'), {
      'x-api-key': key.secret,
      'mcp-protocol-version': '2025-06-18',
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('mcp-session-id')).toBeNull();
    expect(r.body).toMatchObject({
      jsonrpc: '2.0',
      id: 'abc',
      result: { structuredContent: { ok: true, endpoint: 'dimensions' } },
    });
  });

  it('answers a tools/call whose arguments are not an object with invalid params (-32602), as JSON-RPC defines', async () => {
    for (const args of ['1.1.1.1', ['1.1.1.1'], 7, null]) {
      const r = await rawMcp(
        s.url,
        { jsonrpc: '2.0', id: 'bad', method: 'tools/call', params: { name: 'get_dimensions', arguments: args } },
        { 'x-api-key': key.secret },
      );
      expect(r.status).toBe(200);
      expect(r.body, JSON.stringify(args)).toMatchObject({ jsonrpc: '2.0', id: 'bad', error: { code: -32602 } });
    }
  });
});
