import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { analystClient, writeReport } from '../helpers/analyst.ts';
import { createGraphQLServer } from '../../src/transport/graphql/yoga.ts';
import { EXECUTION_CEILINGS, type Ceilings } from '../../src/transport/graphql/ceilings.ts';

/**
 * The per-request ceilings on the real /graphql stack (schema, plugins, error masking), set low
 * so that ordinary requests reach them: a query past its time answers query_timeout (503) and
 * starts no more database reads, a mutation is never cut, and an answer over the size ceiling
 * answers response_too_large (422). Their mechanics on both executors: test/unit/graphql-ceilings.test.ts.
 */
describe(`GraphQL execution ceilings on the served schema (${backendName})`, () => {
  let s: TestServer;
  let key: string;

  beforeAll(async () => {
    s = await startTestServer();
    const client = await analystClient(s, 'ceilings');
    key = (await s.createKey('ceilings', { name: 'yoga' })).secret;
    await writeReport(client, {
      kind: 'email',
      key: 'a@example.com',
      outcomeCode: 'spam',
      title: 'short',
      summary: 'x'.repeat(400),
    });
  });
  afterAll(() => s?.close());

  async function ask(ceilings: Ceilings, query: string) {
    let reads = 0;
    const prisma = s.app.db.prisma.$extends({
      query: {
        $allOperations({ args, query: run }) {
          reads++;
          return run(args);
        },
      },
    }) as unknown as typeof s.app.db.prisma;
    const yoga = createGraphQLServer({
      services: { ...s.app.services, prisma },
      verifier: s.app.verifier,
      log: s.app.log,
      proxies: null,
      ceilings,
    });
    const res = await yoga.fetch(
      'http://localhost/graphql',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ query }),
      },
      {
        req: {
          socket: { remoteAddress: '127.0.0.1' },
          headers: { 'x-api-key': key },
          headersDistinct: { 'x-api-key': [key] },
        } as never,
      },
    );
    return { status: res.status, body: (await res.json()) as any, reads };
  }

  it('stops a query at its deadline with query_timeout, before it reads the workspace', async () => {
    const r = await ask(
      { ...EXECUTION_CEILINGS, maxMs: 0 },
      '{ reports(first: 5) { nodes { title subject { key } } } }',
    );
    expect(r.status).toBe(503);
    expect(r.body).toEqual({
      errors: [
        { message: expect.stringContaining('longer than 0 ms'), extensions: { code: 'query_timeout', maxMs: 0 } },
      ],
      extensions: { cost: expect.any(Object) },
    });
    expect(r.reads).toBe(0);
  });

  it('refuses a mutation past the deadline without losing or doubling its write: a retry with its key stores it once', async () => {
    const before = await s.app.db.prisma.rating.count();
    const mutation =
      'mutation { rate(input: { ip: "198.51.100.7", rating: -1 }, idempotencyKey: "ceilings-1") { replayed } }';
    const r = await ask({ ...EXECUTION_CEILINGS, maxMs: 0 }, mutation);
    expect(r.body, JSON.stringify(r.body)).toMatchObject({
      data: null,
      errors: [
        {
          message: expect.stringContaining('send it again with the same idempotencyKey'),
          extensions: { code: 'query_timeout', maxMs: 0 },
        },
      ],
    });
    const retried = await ask(EXECUTION_CEILINGS, mutation);
    expect(retried.body, JSON.stringify(retried.body)).toMatchObject({
      data: { rate: { replayed: expect.any(Boolean) } },
    });
    expect(await s.app.db.prisma.rating.count()).toBe(before + 1);
  });

  it('refuses an answer over the size ceiling with response_too_large, and answers one under it', async () => {
    const tight = { ...EXECUTION_CEILINGS, maxResponseBytes: 300 };
    const large = await ask(tight, '{ reports(first: 5) { nodes { summary } } }');
    expect(large.status).toBe(422);
    expect(large.body.errors).toEqual([
      {
        message: expect.stringContaining('larger than 300 bytes'),
        extensions: { code: 'response_too_large', maxBytes: 300 },
      },
    ]);
    expect(large.body.data).toBeUndefined();
    const small = await ask(tight, '{ reports(first: 5) { nodes { title } } }');
    expect(small.body.data).toEqual({ reports: { nodes: [{ title: 'short' }] } });
  });
});
