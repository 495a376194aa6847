import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';

/**
 * One id per request: the X-Request-Id response header, the log line of a failure, and the id an
 * internal_error asks the client to quote are the same string, on REST and on /graphql alike; a caller's
 * own valid X-Request-Id is that id, and an invalid one is replaced.
 */
describe(`one request id (${backendName})`, () => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    s = await startTestServer();
    key = (await s.createKey('request-id-ws', { tier: 'developer' })).secret;
  });
  afterAll(() => s?.close());

  /** Every score call fails inside the domain with an error the service does not know, while `during` runs. */
  async function withUnknownFailure<T>(during: () => Promise<T>): Promise<T> {
    const publications = s.app.services.publications;
    const current = publications.current;
    publications.current = () => {
      throw new Error('injected fault for the request-id test');
    };
    try {
      return await during();
    } finally {
      publications.current = current;
    }
  }

  const scoreOn = {
    rest: (headers: Record<string, string>) =>
      fetch(`${s.url}/risk_api/score/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers },
        body: JSON.stringify({ ip: '192.0.2.10' }),
      }),
    graphql: (headers: Record<string, string>) =>
      fetch(`${s.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers },
        body: JSON.stringify({
          query: 'query($ip: String!) { score(ip: $ip) { ip } }',
          variables: { ip: '192.0.2.10' },
        }),
      }),
  };

  it.each(['rest', 'graphql'] as const)(
    'an internal failure on %s names the id of the header and of the log line',
    async (surface) => {
      const before = s.logs.length;
      const res = await withUnknownFailure(() => scoreOn[surface]({}));
      const id = res.headers.get('x-request-id')!;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const body = (await res.json()) as Record<string, any>;
      // REST: { ok: false, error: code, message, request_id }; GraphQL: the code and id in the error's extensions.
      const error =
        surface === 'rest' ? { ...body, code: body.error } : { ...body.errors[0], ...body.errors[0].extensions };
      expect(error).toMatchObject({ code: 'internal_error', request_id: id });
      expect(error.message).toContain(`Quote request id ${id}`);
      expect(JSON.stringify(body)).not.toContain('injected fault'); // the cause stays in the log
      const logged = s.logs
        .slice(before)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.level === 'error');
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ msg: 'unhandled error', requestId: id });
      expect(JSON.stringify(logged[0])).toContain('injected fault');
    },
  );

  it.each(['rest', 'graphql'] as const)(
    "keeps a caller's valid X-Request-Id on %s, in the header, the answer and the log",
    async (surface) => {
      const mine = 'trace-00f1.abc:42';
      const before = s.logs.length;
      const res = await withUnknownFailure(() => scoreOn[surface]({ 'x-request-id': mine }));
      expect(res.headers.get('x-request-id')).toBe(mine);
      expect(await res.text()).toContain(`Quote request id ${mine}`);
      expect(s.logs.slice(before).some((l) => (JSON.parse(l) as { requestId?: string }).requestId === mine)).toBe(true);
    },
  );

  it.each([
    ['too long', 'a'.repeat(129)],
    ['with a space', 'two words'],
    ['with a quote', 'x"}'],
  ])('replaces an X-Request-Id %s with a fresh one', async (_why, sent) => {
    for (const surface of ['rest', 'graphql'] as const) {
      const res = await scoreOn[surface]({ 'x-request-id': sent });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id'), surface).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});
