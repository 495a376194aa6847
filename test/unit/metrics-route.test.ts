import { describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { metricsRoute } from '../../src/transport/http/metrics-route.ts';
import { Metrics } from '../../src/platform/metrics.ts';
import { AppError } from '../../src/errors.ts';

/**
 * Who /metrics answers, decided before any metric is read: without METRICS_TOKEN a direct loopback client only
 * (IPv4, IPv6 and IPv4-mapped); with it, whoever sends the token as a Bearer credential, from any address. The
 * socket addresses a test server cannot have (another host's) are given to the handler directly.
 */
const metrics = new Metrics();
const TOKEN = 'scrape-token-0123456789';

async function ask(
  route: ReturnType<typeof metricsRoute>,
  remoteAddress: string,
  headers: Record<string, string | string[]> = {},
  method = 'GET',
) {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const req = {
    method,
    socket: { remoteAddress },
    headers: Object.fromEntries(Object.entries(lower).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v])),
    headersDistinct: Object.fromEntries(Object.entries(lower).map(([k, v]) => [k, Array.isArray(v) ? v : [v]])),
  } as unknown as IncomingMessage;
  let status = 0;
  let sent: Record<string, unknown> = {};
  const res = {
    writeHead: (s: number, h: Record<string, unknown>) => {
      status = s;
      sent = h;
    },
    end: () => {},
  } as unknown as ServerResponse;
  try {
    await route(req, res, '/metrics', 'test');
    return { status, type: sent['content-type'] };
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    const error = e as AppError;
    return { status: error.status, code: error.code, headers: error.headers };
  }
}

describe('GET /metrics: who is answered', () => {
  it('without METRICS_TOKEN answers loopback clients and refuses every other address and any forwarded request', async () => {
    const open = metricsRoute(metrics, undefined);
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'])
      expect(await ask(open, address), address).toMatchObject({ status: 200 });
    for (const address of [
      '10.0.0.5',
      '203.0.113.9',
      '::ffff:10.0.0.5',
      '2001:db8::1',
      '::',
      '0.0.0.0',
      '127.0.0.1.example',
    ]) {
      expect(await ask(open, address), address).toEqual({
        status: 403,
        code: 'metrics_loopback_only',
        headers: undefined,
      });
    }
    expect(await ask(open, '127.0.0.1', { 'X-Forwarded-For': '127.0.0.1' })).toMatchObject({
      status: 403,
      code: 'metrics_loopback_only',
    });
    expect(await ask(open, '127.0.0.1', { authorization: `Bearer ${TOKEN}` })).toMatchObject({ status: 200 }); // no token configured: not needed
  });

  it('with METRICS_TOKEN needs Authorization: Bearer <token> from every client, loopback included', async () => {
    const guarded = metricsRoute(metrics, TOKEN);
    const refused = {
      status: 401,
      code: 'metrics_token_invalid',
      headers: { 'www-authenticate': 'Bearer realm="metrics"' },
    };
    for (const [what, headers] of [
      ['no header', {}],
      ['another token', { authorization: `Bearer ${TOKEN}x` }],
      ['a prefix of it', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
      ['Basic', { authorization: `Basic ${TOKEN}` }],
      ['an empty bearer', { authorization: 'Bearer ' }],
      ['twice', { authorization: [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`] }],
      ['in X-API-Key', { 'x-api-key': TOKEN }],
    ] as Array<[string, Record<string, string | string[]>]>) {
      expect(await ask(guarded, '127.0.0.1', headers), what).toEqual(refused);
      expect(await ask(guarded, '203.0.113.9', headers), what).toEqual(refused);
    }
    for (const address of ['203.0.113.9', '127.0.0.1', '2001:db8::1']) {
      expect(await ask(guarded, address, { authorization: `Bearer ${TOKEN}` }), address).toEqual({
        status: 200,
        type: 'text/plain; version=0.0.4; charset=utf-8',
      });
    }
    expect(
      await ask(guarded, '203.0.113.9', { authorization: `bearer ${TOKEN}`, 'x-forwarded-for': '198.51.100.1' }),
    ).toMatchObject({ status: 200 });
  });

  it('takes GET and HEAD only', async () => {
    expect(await ask(metricsRoute(metrics, undefined), '127.0.0.1', {}, 'POST')).toEqual({
      status: 405,
      code: 'method_not_allowed',
      headers: { allow: 'GET, HEAD' },
    });
  });
});
