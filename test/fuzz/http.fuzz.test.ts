import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import net from 'node:net';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { ERRORS } from '../../src/errors.ts';
import { BAD_UTF8, FUZZ_REPORT, FUZZ_RUNS, fuzzParameters, fuzzTimeout, oddString } from './arbitraries.ts';
import { ANSWER_TIMEOUT_MS, Tally, closeClient, rawExchange, send, type RawResult } from './client.ts';

/**
 * HTTP/1.1 framing and headers from raw sockets (node:net), where no HTTP client can go: broken
 * and repeated header lines, bodies shorter or longer than declared, chunked bodies that stop
 * early or have bad sizes, conflicting Content-Length and Transfer-Encoding. Each exchange ends
 * with an answer or a close within ANSWER_TIMEOUT_MS (else: a hang, the test fails), never a 5xx,
 * and the server then still serves a normal request; a refused score is never counted.
 */
describe(`HTTP framing fuzz (${backendName}), ${FUZZ_RUNS} cases`, () => {
  let s: TestServer;
  let port: number;
  let secret: string;
  let quotaUsed: () => Promise<number>;
  const tally = new Tally();

  beforeAll(async () => {
    s = await startTestServer();
    port = Number(new URL(s.url).port);
    secret = (await s.createKey('fuzz-http', { tier: 'enterprise' })).secret;
    const ws = await s.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: 'fuzz-http' } });
    const tier = s.app.services.tiers.get('enterprise');
    quotaUsed = async () => (await s.app.services.meter.peek(ws.id, tier)).usedToday;
  });
  afterAll(async () => {
    if (FUZZ_REPORT) console.log(tally.table(`HTTP framing fuzz, ${backendName}, FUZZ_RUNS=${FUZZ_RUNS}`));
    closeClient();
    await s?.close();
  });

  const stillServing = async (context: string) => {
    const a = await send(s.url, 'GET', '/healthz', {});
    expect(a.status, `the server stopped serving after ${context}`).toBe(200);
  };

  /** Bodies a route would accept, so that framing, not content, decides the answer. */
  const BODIES: Record<string, string> = {
    '/risk_api/score/': '{"ip":"8.8.8.8"}',
    '/risk_api/rate/': '{"ip":"203.0.113.9","rating":-1}',
    '/risk_api/dimensions/': '{"ip":"1.1.1.1"}',
    '/graphql': '{"query":"{ viewer { apiKey { name } } }"}',
    '/workspace/sign-in': 'email=a%40b.example&password=x&_csrf=y',
    '/webhooks/paypal': '{"id":"WH-1"}',
    '/healthz': '',
  };

  const header = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        'Content-Type: application/json',
        'X-API-Key: KEY',
        'Authorization: Bearer KEY',
        'Accept: */*',
        'Connection: keep-alive',
        'Connection: close',
        'Expect: 100-continue',
        'Accept-Encoding: gzip, br',
      ),
    },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        'X-API-Key: KEY',
        'Content-Type: text/plain',
        'Content-Type: application/json; charset=utf-16',
        'Content-Type: APPLICATION/JSON',
        'X-Forwarded-For: 1.2.3.4, ::ffff:10.0.0.1, fe80::1%eth0, 999.1.1.1',
        'Idempotency-Key: a',
        'Idempotency-Key: b',
        'Authorization: Bearer rk_other_key',
        'Cookie: rk_session=%zz; rk_pre=%E0%A4%A',
        'Origin: null',
        'Origin: https://evil.example',
        'Upgrade: websocket',
        'Connection: Upgrade',
        'Upgrade: h2c',
        'HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA',
        'Content-Encoding: gzip',
        'Accept: text/html',
        'Accept: application/graphql-response+json',
        'Accept: text/event-stream',
        'X-HTTP-Method-Override: DELETE',
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'Host: other.example',
        'Transfer-Encoding: gzip, chunked',
        'Transfer-Encoding: identity',
        'Transfer-Encoding: chunked, chunked',
        'Content-Length: 0',
        'Content-Length: -1',
        'Content-Length: 1e3',
        'Content-Length: 99999999999999999999',
        'Content-Length: 5, 6',
        'Content-Length:  12 ',
        'Broken header',
        ' X-Leading-Space: 1',
        'X-Space-Before-Colon : 1',
        'X-Obs-Fold: a\r\n  b',
        'X-Nul: a\u0000b',
        'X-Bare-CR: a\rb',
        'X-Bare-LF: a\nb',
        ': no-name',
        'X-Héader: 1',
        'X-Value: \u00e9\u00ff',
        `X-Long: ${'a'.repeat(9000)}`,
        `X-Longer: ${'b'.repeat(20_000)}`,
        'X-API-Key: rk_invalid',
        'Authorization: Basic YTpi',
        'Authorization: Bearer',
      ),
    },
    { weight: 1, arbitrary: oddString(3).map((v) => `X-Odd: ${Buffer.from(v, 'utf8').toString('latin1')}`) },
  );

  type Framing =
    | 'none'
    | 'length'
    | 'length-long'
    | 'length-short'
    | 'chunked'
    | 'chunked-early'
    | 'chunked-bad-size'
    | 'chunked-ext'
    | 'both'
    | 'two-lengths';
  const framing = fc.constantFrom<Framing>(
    'none',
    'length',
    'length',
    'length',
    'length-long',
    'length-short',
    'chunked',
    'chunked',
    'chunked-early',
    'chunked-bad-size',
    'chunked-ext',
    'both',
    'two-lengths',
  );

  function frame(body: Buffer, how: Framing, cut: number): { head: string[]; bytes: Buffer } {
    const at = Math.min(body.length, Math.max(0, Math.floor(body.length * cut)));
    // An empty chunk is the last-chunk marker, so a cut at either end sends one piece, not an early end
    // with the rest read as a next request (that request is complete and is rightly answered and counted).
    const chunk = (b: Buffer) =>
      b.length === 0
        ? Buffer.alloc(0)
        : Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
    switch (how) {
      case 'none':
        return { head: [], bytes: body };
      case 'length':
        return { head: [`Content-Length: ${body.length}`], bytes: body };
      case 'length-long':
        return { head: [`Content-Length: ${body.length + 10}`], bytes: body }; // declares more than sent
      case 'length-short':
        return { head: [`Content-Length: ${at}`], bytes: body }; // the rest reads as a next request
      case 'chunked':
        return {
          head: ['Transfer-Encoding: chunked'],
          bytes: Buffer.concat([chunk(body.subarray(0, at)), chunk(body.subarray(at)), Buffer.from('0\r\n\r\n')]),
        };
      case 'chunked-early':
        return {
          head: ['Transfer-Encoding: chunked'],
          bytes: Buffer.concat([
            chunk(body.subarray(0, at)),
            Buffer.from(`${(body.length - at + 5).toString(16)}\r\n`),
            body.subarray(at),
          ]),
        };
      case 'chunked-bad-size':
        return {
          head: ['Transfer-Encoding: chunked'],
          bytes: Buffer.concat([Buffer.from('zz\r\n'), body, Buffer.from('\r\n0\r\n\r\n')]),
        };
      case 'chunked-ext':
        return {
          head: ['Transfer-Encoding: chunked'],
          bytes: Buffer.concat([
            Buffer.from(`${body.length.toString(16)};name="v"\r\n`),
            body,
            Buffer.from('\r\n0\r\nX-Trailer: 1\r\n\r\n'),
          ]),
        };
      case 'both':
        return {
          head: [`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked'],
          bytes: Buffer.concat([chunk(body), Buffer.from('0\r\n\r\n')]),
        };
      case 'two-lengths':
        return { head: [`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`], bytes: body };
    }
  }

  const exchange = fc.record({
    method: fc.oneof(
      { weight: 8, arbitrary: fc.constant('POST') },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          'GET',
          'HEAD',
          'PUT',
          'DELETE',
          'OPTIONS',
          'PATCH',
          'TRACE',
          'post',
          'P\u00d6ST',
          'CONNECT',
          'PRI',
        ),
      },
    ),
    path: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...Object.keys(BODIES)) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          '/risk_api/score',
          '/risk_api/score/?x=%zz',
          '//risk_api/score/',
          '/risk_api/../graphql',
          '/graphql?query=%7B__typename%7D',
          '*',
          'http://127.0.0.1/risk_api/score/',
          '/risk_api/score/%00',
          '/risk_api/\u00e9',
          `/risk_api/${'a'.repeat(9000)}`,
          '/workspace/keys',
          '/workspace/reports/ip/%zz',
          '/risk_api/export/?limit=%E0%A4%A',
        ),
      },
    ),
    version: fc.oneof(
      { weight: 9, arbitrary: fc.constant('HTTP/1.1') },
      { weight: 1, arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.2', 'HTTP/1.1 extra', 'http/1.1', '') },
    ),
    headers: fc.array(header, { maxLength: 6 }),
    withKey: fc.boolean(),
    framing,
    cut: fc.double({ min: 0, max: 1, noNaN: true }),
    badBytes: fc.oneof(
      { weight: 7, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom(...BAD_UTF8) },
    ),
    pieces: fc.integer({ min: 1, max: 4 }),
    end: fc.boolean(),
  });

  it(
    'answers broken framing and headers with a status or a close, never a 5xx or a hang, and keeps serving',
    async () => {
      await fc.assert(
        fc.asyncProperty(exchange, async (x) => {
          const body = Buffer.concat([Buffer.from(BODIES[x.path] ?? '{}'), x.badBytes ?? Buffer.alloc(0)]);
          const framed = frame(body, x.framing, x.cut);
          const lines = [
            `${x.method} ${x.path} ${x.version}`.trimEnd(),
            'Host: 127.0.0.1',
            ...(x.withKey ? [`X-API-Key: ${secret}`] : []),
            ...x.headers.map((h) => h.replaceAll('KEY', secret)),
            ...(x.path === '/workspace/sign-in'
              ? ['Content-Type: application/x-www-form-urlencoded']
              : x.headers.some((h) => h.startsWith('Content-Type'))
                ? []
                : ['Content-Type: application/json']),
            ...framed.head,
          ];
          const raw = Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), framed.bytes]);
          const cuts = Array.from({ length: x.pieces - 1 }, (_, i) => Math.floor((raw.length * (i + 1)) / x.pieces));
          const pieces = [0, ...cuts, raw.length]
            .slice(1)
            .map((end, i, all) => raw.subarray(i === 0 ? 0 : all[i - 1], end));
          // A body that stops early can only end with a close from our side: with the socket kept open the server rightly waits for the rest.
          const incomplete = x.framing === 'length-long' || x.framing === 'chunked-early';
          const before = await quotaUsed();
          const context = JSON.stringify({
            ...x,
            badBytes: x.badBytes?.toString('hex'),
            raw: raw.toString('latin1').slice(0, 600),
          });
          let r: RawResult;
          try {
            r = await rawExchange(port, pieces, x.end || incomplete, { headOnly: x.method === 'HEAD' });
          } catch (e) {
            throw new Error(`${(e as Error).message}\n  request: ${context}`);
          }
          expect(r.status === null ? r.closed : true, `neither an answer nor a close: ${context}`).toBe(true);
          if (r.status !== null) {
            expect(r.status, `a 5xx: ${context}\n  answer: ${r.head}\r\n\r\n${r.body.slice(0, 300)}`).toBeLessThan(500);
            const json = (() => {
              try {
                return JSON.parse(r.body);
              } catch {
                return undefined;
              }
            })();
            if (json && json.ok === false)
              expect(
                ERRORS[json.error as keyof typeof ERRORS]?.status,
                `an uncoded error: ${context} → ${r.body.slice(0, 300)}`,
              ).toBe(r.status);
          }
          const label =
            r.status === null
              ? 'closed'
              : r.status < 400
                ? 'ok'
                : (/"error":"([a-z_]+)"/.exec(r.body)?.[1] ??
                  /"code":"([A-Za-z_]+)"/.exec(r.body)?.[1] ??
                  (/^content-type: text\/html/im.test(r.head) ? 'html page' : 'no body'));
          tally.add('raw HTTP/1.1 exchanges', r.status ?? 'closed', label);
          const scored = r.status === 200 && /"endpoint":"score"/.test(r.body);
          const used = await quotaUsed();
          if (r.status === null && x.end) {
            // The client hung up (half-close) right after a complete request: node:http then drops the answer
            // (httpAllowHalfOpen is off), but a score already under way completes and counts. Not a refused call.
            expect(used - before, `at most one score counted: ${context}`).toBeLessThanOrEqual(1);
            expect(used - before).toBeGreaterThanOrEqual(0);
          } else {
            expect(used, `score counted ${scored ? 'once' : 'nothing'}: ${context}`).toBe(before + (scored ? 1 : 0));
          }
          await stillServing(context);
        }),
        fuzzParameters(),
      );
    },
    fuzzTimeout(60),
  );

  it('keeps serving other connections while a body stops half way and its connection stays open', async () => {
    const stalled: net.Socket[] = [];
    try {
      for (const path of ['/risk_api/score/', '/risk_api/rate/', '/graphql']) {
        for (const framing of [
          'Transfer-Encoding: chunked\r\n\r\n8\r\n{"ip":"8',
          'Content-Length: 100\r\n\r\n{"ip":"8',
        ]) {
          const socket = net.connect(port, '127.0.0.1');
          socket.on('error', () => {});
          socket.write(
            `POST ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${secret}\r\nContent-Type: application/json\r\n${framing}`,
          );
          stalled.push(socket);
        }
      }
      const before = await quotaUsed();
      for (let i = 0; i < 20; i++) {
        const a = await send(
          s.url,
          'POST',
          '/risk_api/score/',
          { 'x-api-key': secret, 'content-type': 'application/json' },
          '{"ip":"9.9.9.9"}',
        );
        expect(a.status, a.text).toBe(200);
      }
      expect(await quotaUsed()).toBe(before + 20); // the six stalled score/rate/graphql calls counted nothing
      // Ending them half way (a client that gives up) is answered 400 or closed, within the bound.
      const ends = stalled.map(
        (socket) =>
          new Promise<string>((resolve) => {
            let data = '';
            const timer = setTimeout(
              () => resolve(`no answer and no close within ${ANSWER_TIMEOUT_MS} ms`),
              ANSWER_TIMEOUT_MS,
            );
            socket.on('data', (d: Buffer) => {
              data += d.toString('latin1');
            });
            socket.on('close', () => {
              clearTimeout(timer);
              resolve(data.split('\r\n')[0] || 'closed');
            });
            socket.end();
          }),
      );
      for (const outcome of await Promise.all(ends)) expect(outcome).toMatch(/^(HTTP\/1\.1 400 |closed$)/);
      expect(await quotaUsed()).toBe(before + 20);
    } finally {
      for (const socket of stalled) socket.destroy();
    }
  });
});
