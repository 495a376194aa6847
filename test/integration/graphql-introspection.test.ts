import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getIntrospectionQuery } from 'graphql';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { createGraphQLServer } from '../../src/transport/graphql/yoga.ts';
import { QUERY_LIMITS } from '../../src/transport/graphql/limits.ts';

/**
 * The audit's introspection finding: 30 aliased `__schema` walks cost 30 points, needed no key and returned
 * 4 MB. Now: one `__schema` per request, weighed by what it answers, needing an API key on /graphql unless
 * the operator allows it (GRAPHQL_PUBLIC_INTROSPECTION; the served handler reads it from the config).
 * And the audit's deeply nested variables, which overflowed the stack in the cost cache (internal_error and a
 * stack trace logged per request): refused before any walk.
 */
describe(`introspection on /graphql (${backendName})`, () => {
  let s: TestServer;
  let key: string;

  beforeAll(async () => {
    s = await startTestServer();
    key = (await s.createKey('introspect')).secret;
  });
  afterAll(() => s?.close());

  const ask = (query: string, headers: Record<string, string> = { 'x-api-key': key }) =>
    s.post('/graphql', { query }, { accept: 'application/json', ...headers });

  it("refuses the audit's 30 aliased __schema walks, and any second __schema, with query_too_complex", async () => {
    const walks = Array.from({ length: 30 }, (_, i) => `s${i}: __schema { types { name fields { name } } }`);
    for (const query of [
      `{ ${walks.join(' ')} }`,
      '{ a: __schema { queryType { name } } b: __schema { queryType { name } } }',
    ]) {
      const r = await ask(query);
      expect(r.body.data, JSON.stringify(r.body)).toBeUndefined();
      expect(r.body.errors[0].extensions).toMatchObject({
        code: 'query_too_complex',
        limit: 'maxSchemaFields',
        maximum: QUERY_LIMITS.maxSchemaFields,
      });
    }
  });

  it('weighs __schema by the size of its answer (a point per 100 characters), the same on every ask', async () => {
    const full = getIntrospectionQuery();
    const first = await ask(full);
    expect(first.status).toBe(200);
    const chars = JSON.stringify(first.body.data).length;
    expect(first.body.extensions.cost.requested).toBe(Math.ceil(chars / 100));
    expect(chars).toBeGreaterThan(10_000); // the whole schema: far more than the 1 point per field it used to cost
    const again = await ask(full);
    expect(again.body).toEqual(first.body);
    const small = await ask('{ __schema { queryType { name } } }');
    expect(small.body).toEqual({
      data: { __schema: { queryType: { name: 'Query' } } },
      extensions: { cost: { requested: 1, maximum: QUERY_LIMITS.maxCost } },
    });
  });

  it('refuses introspection without an API key, with missing_api_key (401), unless the operator allows it', async () => {
    for (const query of ['{ __schema { queryType { name } } }', '{ __type(name: "Query") { name } }']) {
      const r = await ask(query, {});
      expect(r.status, JSON.stringify(r.body)).toBe(401);
      expect(r.body.errors[0].extensions.code).toBe('missing_api_key');
    }
    const open = createGraphQLServer({
      services: s.app.services,
      verifier: s.app.verifier,
      log: s.app.log,
      proxies: null,
      publicIntrospection: true,
    });
    const res = await open.fetch(
      'http://localhost/graphql',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __type(name: "Query") { name } }' }),
      },
      { req: { socket: { remoteAddress: '127.0.0.1' }, headers: {}, headersDistinct: {} } as never },
    );
    expect(await res.json()).toMatchObject({ data: { __type: { name: 'Query' } } });
  });

  it('refuses variables nested deeper than the bound before any walk: a coded 400, one log line, no stack', async () => {
    const depth = 30_000; // about as deep as a 64 KB body can nest
    const body = `{"query":"query($x: String) { __typename }","variables":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    const r = await s.post('/graphql', body, { 'x-api-key': key, accept: 'application/json' });
    expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(400);
    expect(r.body.errors[0].extensions).toMatchObject({ code: 'invalid_request', limit: 'maxDepth' });
    const id = r.headers.get('x-request-id')!;
    const lines = s.logs.filter((l) => l.includes(id));
    expect(lines, lines.join('\n')).toHaveLength(1);
    expect(lines[0]).not.toMatch(/stack|internal_error/i);
    // Wide but shallow variables within the bounds are the schema's business, not this check's.
    const ok = await ask('query($x: [String!]) { __typename }', { 'x-api-key': key });
    expect(ok.status).toBe(200);
  });
});
