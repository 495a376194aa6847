import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';

/**
 * CORS on /graphql. API keys are headers, never cookies, so no origin ever gets
 * Access-Control-Allow-Credentials; without CORS_ORIGINS no origin gets any grant at all, and with it
 * exactly the listed origins do (never a reflected Origin, never "*" or "null").
 */
const APP = 'https://app.example.com';
const EVIL = 'https://evil.example';
const QUERY = JSON.stringify({ query: '{ viewer { workspace { name } } }' });

type Answer = { status: number; headers: Headers; text: string };
async function preflight(s: TestServer, origin: string): Promise<Answer> {
  const res = await fetch(`${s.url}/graphql`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, x-api-key',
    },
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}
async function post(s: TestServer, origin: string, key: string, body = QUERY): Promise<Answer> {
  const res = await fetch(`${s.url}/graphql`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json', 'x-api-key': key },
    body,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}
/** A "simple" cross-origin request (no preflight): GET with the query in the URL. */
async function simpleGet(s: TestServer, origin: string): Promise<Answer> {
  const res = await fetch(`${s.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
    headers: { origin, accept: 'application/json' },
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}
const cors = (a: Answer) => Object.fromEntries([...a.headers].filter(([k]) => k.startsWith('access-control-')));

describe(`CORS on /graphql without CORS_ORIGINS (${backendName})`, () => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    s = await startTestServer();
    key = (await s.createKey('cors-none')).secret;
  });
  afterAll(() => s?.close());

  it('grants no origin anything: a preflight gets no Access-Control-* header, so the browser blocks the call', async () => {
    for (const origin of [EVIL, APP, 'null', s.url.replace('127.0.0.1', 'localhost')]) {
      const p = await preflight(s, origin);
      expect(cors(p), origin).toEqual({});
    }
  });

  it('adds no grant to answers either (a page on another site cannot read them), while the call itself works for non-browser clients', async () => {
    const r = await post(s, EVIL, key);
    expect(r.status, r.text).toBe(200);
    expect(JSON.parse(r.text).data.viewer.workspace.name).toBe('cors-none');
    expect(cors(r)).toEqual({});
    expect(cors(await simpleGet(s, EVIL))).toEqual({});
  });
});

describe(`CORS on /graphql with CORS_ORIGINS (${backendName})`, () => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    s = await startTestServer({ CORS_ORIGINS: `${APP}, http://localhost:3000/` });
    key = (await s.createKey('cors-listed')).secret;
  });
  afterAll(() => s?.close());

  it("answers a listed origin's preflight with that origin alone, the methods and headers the API takes, and no credentials", async () => {
    const p = await preflight(s, APP);
    expect(p.status).toBe(204);
    expect(cors(p)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'content-type, x-api-key, authorization, idempotency-key',
      'access-control-max-age': '600',
    });
    expect(p.headers.get('vary')).toMatch(/origin/i);
    expect(cors(await preflight(s, 'http://localhost:3000'))['access-control-allow-origin']).toBe(
      'http://localhost:3000',
    );
  });

  it('gives an unlisted origin, "null" and a look-alike no grant at all', async () => {
    for (const origin of [
      EVIL,
      'null',
      `${APP}.evil.example`,
      'http://app.example.com',
      'https://app.example.com:8443',
    ]) {
      expect(cors(await preflight(s, origin)), origin).toEqual({});
      const r = await post(s, origin, key);
      expect(cors(r), origin).toEqual({});
      expect(r.headers.get('vary'), origin).toMatch(/origin/i); // a shared cache must not hand one origin's answer to another
    }
  });

  it("grants a listed origin's request its answer (with Retry-After and X-Request-Id readable), never with credentials", async () => {
    const r = await post(s, APP, key);
    expect(r.status, r.text).toBe(200);
    expect(cors(r)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-expose-headers': 'retry-after, x-request-id',
    });
    expect(cors(await simpleGet(s, APP))).toEqual({
      'access-control-allow-origin': APP,
      'access-control-expose-headers': 'retry-after, x-request-id',
    });
  });

  it('grants the listed origin its refusals too (a 415 and a 413 written before GraphQL runs)', async () => {
    const wrongType = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      headers: { origin: APP, 'content-type': 'text/plain' },
      body: QUERY,
    });
    expect(wrongType.status).toBe(415);
    expect(wrongType.headers.get('access-control-allow-origin')).toBe(APP);
    const tooLarge = await post(s, APP, key, JSON.stringify({ query: `{ __typename } #${'x'.repeat(70_000)}` }));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('access-control-allow-origin')).toBe(APP);
  });
});
