import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';

/**
 * A client that goes away in the middle of sending its body is not a fault of ours: nobody is left to
 * answer, and an operator must not be paged by an "unhandled error" with a stack for it. It is logged at
 * debug, with the request id the response would have carried.
 */
describe(`a client that disconnects mid-request (${backendName})`, () => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    s = await startTestServer();
    key = (await s.createKey('disconnect-ws')).secret;
  });
  afterAll(() => s?.close());

  /** Sends the headers and half of the declared body, then destroys the socket. Resolves with the
   *  log lines written about that request (its id is the x-request-id the server would have sent). */
  async function halfBodyThenHangUp(
    path: string,
    headers: Record<string, string>,
  ): Promise<Array<Record<string, unknown>>> {
    const body = JSON.stringify({ ip: '192.0.2.44', rating: -1, note: 'x'.repeat(200) });
    const before = s.logs.length;
    const { port } = new URL(s.url);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        const head = [
          `POST ${path} HTTP/1.1`,
          `host: 127.0.0.1:${port}`,
          'content-type: application/json',
          `content-length: ${Buffer.byteLength(body)}`,
          ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
          '',
          '',
        ].join('\r\n');
        socket.write(head + body.slice(0, body.length / 2), () =>
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 50),
        );
      });
      socket.on('error', reject);
    });
    // The server notices the hang-up asynchronously: wait for its line about it (a bounded poll, not a timing assertion).
    const about = () =>
      s.logs
        .slice(before)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.msg !== 'request');
    for (let i = 0; i < 100 && about().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    return about();
  }

  it.each([
    ['the REST facade', '/risk_api/rate/', true],
    ['GraphQL', '/graphql', false],
  ])('on %s is logged once at debug, without a stack', async (_name, path, withKey) => {
    const lines = await halfBodyThenHangUp(path, withKey ? { 'x-api-key': key } : {});
    expect(lines).toEqual([
      {
        time: expect.any(String),
        pid: process.pid,
        hostname: expect.any(String),
        level: 'debug',
        msg: 'client disconnected before its request was read',
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        method: 'POST',
        path,
      },
    ]);
  });

  it('leaves the server answering the next request', async () => {
    expect((await s.post('/risk_api/rate/', { ip: '192.0.2.45', rating: 1 }, { 'x-api-key': key })).status).toBe(201);
  });
});
