import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/**
 * One access line per request, written when it ends, that an operator can search by request id, trace id,
 * workspace, key prefix or client address, with the route pattern beside the path; a caller's valid X-Request-Id
 * and traceparent are kept and echoed, invalid ones are not.
 */
describe(`access log lines (${backendName})`, () => {
  let s: TestServer;
  let key: { prefix: string; secret: string };
  beforeAll(async () => {
    s = await startTestServer({ TRUSTED_PROXIES: '127.0.0.1' });
    key = await s.createKey('access-ws', { tier: 'developer' });
  });
  afterAll(() => s?.close());

  const linesOf = (requestId: string) =>
    s.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request' && l.requestId === requestId);
  async function accessLine(requestId: string) {
    for (let i = 0; i < 100 && linesOf(requestId).length === 0; i++) await new Promise((r) => setTimeout(r, 20)); // written on 'close'
    const lines = linesOf(requestId);
    expect(lines, `access lines of ${requestId}`).toHaveLength(1);
    return lines[0]!;
  }

  it('names the route, status, duration, request and trace ids, workspace, key prefix and client address; echoes both ids', async () => {
    const workspace = await s.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: 'access-ws' } });
    const r = await s.post(
      '/risk_api/score/',
      { ip: '192.0.2.50' },
      {
        'x-api-key': key.secret,
        'x-request-id': 'lb-7f3a.1',
        traceparent: TRACEPARENT,
        'x-forwarded-for': '198.51.100.23',
      },
    );
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe('lb-7f3a.1');
    expect(r.headers.get('traceparent')).toBe(TRACEPARENT);
    expect(await accessLine('lb-7f3a.1')).toEqual({
      level: 'info',
      time: expect.any(String),
      pid: process.pid,
      hostname: expect.any(String),
      msg: 'request',
      requestId: 'lb-7f3a.1',
      method: 'POST',
      route: '/risk_api/score',
      path: '/risk_api/score/',
      status: 200,
      ms: expect.any(Number),
      clientIp: '198.51.100.23',
      workspaceId: workspace.id,
      keyPrefix: key.prefix,
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    });
    expect(s.logs.join('')).not.toContain(key.secret.slice(key.prefix.length + 1));
  });

  it('leaves out what it does not know, and ignores invalid ids', async () => {
    const res = await fetch(`${s.url}/risk_api/score/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-request-id': 'bad id\u00e9',
        traceparent: TRACEPARENT.toUpperCase(),
      },
      body: '{"ip":"192.0.2.1"}',
    });
    expect(res.status).toBe(401);
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('traceparent')).toBeNull();
    const line = await accessLine(id);
    // An error answer's line carries its code: why it failed, without reading the body.
    expect(line).toMatchObject({
      route: '/risk_api/score',
      status: 401,
      error: 'missing_api_key',
      clientIp: '127.0.0.1',
    });
    expect(Object.keys(line)).not.toContain('workspaceId');
    expect(Object.keys(line)).not.toContain('keyPrefix');
    expect(Object.keys(line)).not.toContain('traceId');
  });

  it('writes one line for a request cut short by its client, with status "aborted"', async () => {
    const { port } = new URL(s.url);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          [
            'POST /risk_api/rate/ HTTP/1.1',
            `host: 127.0.0.1:${port}`,
            'content-type: application/json',
            'content-length: 100',
            `x-api-key: ${key.secret}`,
            'x-request-id: cut-short-1',
            '',
            '{"ip":',
          ].join('\r\n'),
          () =>
            setTimeout(() => {
              socket.destroy();
              resolve();
            }, 50),
        );
      });
      socket.on('error', reject);
    });
    expect(await accessLine('cut-short-1')).toMatchObject({
      route: '/risk_api/rate',
      status: 'aborted',
      keyPrefix: key.prefix,
    });
  });
});
