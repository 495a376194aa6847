import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { rawExchange } from '../fuzz/client.ts';

/**
 * The inputs the fuzz tests (test/fuzz) found answered with a 500 or a wrong address, pinned so
 * they stay fixed whatever the fuzzers draw next. GraphQL's are in graphql-abuse.test.ts.
 */
describe(`hostile input found by fuzzing (${backendName})`, () => {
  let s: TestServer;
  let auth: Record<string, string>;
  beforeAll(async () => {
    s = await startTestServer();
    auth = { 'x-api-key': (await s.createKey('hostile', { tier: 'enterprise' })).secret };
  });
  afterAll(() => s?.close());

  it('refuses a body nested thousands of levels deep with 400, not a stack overflow', async () => {
    for (const body of [
      `{"ip":${'['.repeat(30_000)}${']'.repeat(30_000)}}`,
      `{"ip":"8.8.8.8","x":${'{"a":'.repeat(33)}1${'}'.repeat(33)}}`,
    ]) {
      const r = await s.post('/risk_api/score/', body, auth);
      expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([400, 'invalid_request']);
      expect(r.body.details).toEqual([{ field: '(body)', message: 'must not nest more than 32 levels deep' }]);
    }
    // 32 levels is fine (and then judged on its fields).
    const ok = await s.post('/risk_api/score/', `{"ip":"8.8.8.8","x":${'['.repeat(31)}${']'.repeat(31)}}`, auth);
    expect(ok.body.details, JSON.stringify(ok.body)).toEqual([{ field: 'x', message: 'is not a known field' }]);
  });

  it('reads the embedded IPv4 of an IPv6 address by the IPv4 rules, and one address one way', async () => {
    for (const ip of ['::ffff:1.2.3.010', '::ffff:01.2.3.4', '::1.2.3.04']) {
      const r = await s.post('/risk_api/dimensions/', { ip }, auth);
      expect([ip, r.status, r.body.details?.[0]?.field]).toEqual([ip, 400, 'ip']);
    }
    const spellings: Array<[string, string]> = [
      ['::1.2.3.4', '::102:304'],
      ['::102:304', '::102:304'],
      ['::0.0.0.0', '::'],
      ['::ffff:1.2.3.4', '1.2.3.4'],
      ['::FFFF:102:304', '1.2.3.4'],
    ];
    for (const [ip, canonical] of spellings) {
      const r = await s.post('/risk_api/dimensions/', { ip }, auth);
      expect([ip, r.status, r.body.query?.ip], JSON.stringify(r.body)).toEqual([ip, 200, canonical]);
    }
  });

  it('answers export filters PostgreSQL cannot take (NUL, lone surrogates, years before 1) and odd control values with 400', async () => {
    const get = async (qs: string) => {
      const res = await fetch(`${s.url}/risk_api/export/?${qs}`, { headers: auth });
      return { status: res.status, body: await res.json().catch(() => null) };
    };
    for (const qs of ['namespace=%00', 'tags=a%00b', 'from=-271821-04-20T00:00:00Z', 'to=%2B275760-09-13T00:00:00Z']) {
      const r = await get(qs);
      expect([qs, r.status, r.body?.error]).toEqual([qs, 400, 'invalid_request']);
    }
    for (const body of [
      { text: '\ud800' },
      { namespace: ['a\u0000'] },
      { limit: [[{ toString: null }]] },
      { limit: { valueOf: 1 } },
      { cursor: { toString: 1 } },
      { cursor: ['x'] },
    ]) {
      const r = await s.post('/risk_api/export/', body, auth);
      expect([JSON.stringify(body), r.status, r.body.error]).toEqual([JSON.stringify(body), 400, 'invalid_request']);
    }
  });

  it('treats a repeated X-API-Key or Authorization header as conflicting (node joins or drops repeats)', async () => {
    const { request } = await import('node:http');
    const answer = (headers: Record<string, string | string[]>) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const url = new URL('/risk_api/dimensions/', s.url);
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
          },
          (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
          },
        );
        req.on('error', reject);
        req.end('{"ip":"8.8.8.8"}');
      });
    const cases: Array<Record<string, string[]>> = [
      { 'x-api-key': [auth['x-api-key']!, auth['x-api-key']!] },
      { authorization: [`Bearer ${auth['x-api-key']}`, 'Bearer rk_other'] },
    ];
    for (const headers of cases) {
      const r = await answer(headers);
      expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([400, 'conflicting_api_keys']);
    }
  });

  it('answers a request whose body stalls, or is malformed after Connection: Upgrade, with 408 and a close', async () => {
    // Found by `npm run fuzz` (10,000 cases): with `Connection: Upgrade` and a bad chunk size, Node raises no
    // parse error and the request never ends; REQUEST_TIMEOUT_MS bounds it, and any body that stops coming.
    const quick = await startTestServer({ REQUEST_TIMEOUT_MS: '1000' });
    try {
      const port = Number(new URL(quick.url).port);
      const key = (await quick.createKey('stall', { tier: 'enterprise' })).secret;
      const head = (framing: string, extra: string[] = []) =>
        `${['POST /risk_api/score/ HTTP/1.1', 'Host: x', 'Content-Type: application/json', `X-API-Key: ${key}`, framing, ...extra].join('\r\n')}\r\n\r\n`;
      const upgraded = await rawExchange(
        port,
        [
          Buffer.from(
            `${head('Transfer-Encoding: chunked', ['Connection: Upgrade', 'Upgrade: h2c'])}zz\r\n{"ip":"8.8.8.8"}\r\n0\r\n\r\n`,
          ),
        ],
        false,
        { timeoutMs: 8_000 },
      );
      expect(upgraded, JSON.stringify(upgraded)).toMatchObject({ status: 408, closed: true });
      const stalled = await rawExchange(port, [Buffer.from(`${head('Content-Length: 100')}{"ip":`)], false, {
        timeoutMs: 8_000,
      });
      expect(stalled, JSON.stringify(stalled)).toMatchObject({ status: 408, closed: true });
      // A well-formed request with the same upgrade headers is served as HTTP/1.1 (an h2c upgrade is ignored).
      const body = '{"ip":"8.8.8.8"}';
      const plain = await rawExchange(
        port,
        [
          Buffer.from(
            head(`Content-Length: ${body.length}`, [
              'Connection: Upgrade, HTTP2-Settings',
              'Upgrade: h2c',
              'HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA',
            ]) + body,
          ),
        ],
        false,
        { timeoutMs: 8_000 },
      );
      expect(plain.status, JSON.stringify(plain)).toBe(200);
    } finally {
      await quick.close();
    }
  });

  it('refuses e-mail addresses with control characters at registration and sign-in, without asking the database', async () => {
    // Found by the control-plane fuzz on PostgreSQL: sign-in with e-mail "\u0000" answered 500 (PostgreSQL refuses NUL in text).
    const { checkCredentials } = await import('../../src/domain/accounts/accounts.ts');
    const { register } = await import('../../src/domain/accounts/registration.ts');
    const prisma = s.app.db.prisma;
    const deps = {
      prisma,
      counters: s.app.services.counters,
      mailer: {
        enqueue: () => {
          throw new Error('no mail for a refused address');
        },
      } as never,
      baseUrl: s.url,
    };
    for (const email of ['\u0000', 'a\u0000b@example.com', 'a\u007fb@example.com', 'a\u0001@example.com']) {
      expect(await checkCredentials(prisma, email, 'correct horse battery staple'), JSON.stringify(email)).toBeNull();
      expect(
        await register(deps, email, 'correct horse battery staple', '127.0.0.1'),
        JSON.stringify(email),
      ).toMatchObject({ ok: false, field: 'email' });
    }
    expect(await prisma.account.count({ where: { email: { contains: 'example.com' } } })).toBe(0);
    expect(await prisma.emailVerification.count()).toBe(0);
  });

  it('ignores a malformed cookie instead of failing the page', async () => {
    for (const cookie of ['rk_session=%zz', 'rk_csrf=%E0%A4%A; rk_session=%']) {
      const res = await fetch(`${s.url}/workspace/sign-in`, { headers: { cookie }, redirect: 'manual' });
      expect([cookie, res.status]).toEqual([cookie, 200]);
    }
  });
});
