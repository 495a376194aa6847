import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, parse } from 'graphql';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { rateIp, writeReport } from '../helpers/analyst.ts';
import { schema } from '../../src/transport/graphql/schema.ts';
import type { RequestContext } from '../../src/transport/http/request-context.ts';
import type { PrismaClient } from '../../src/generated/prisma/client.ts';
import { createGraphQLServer } from '../../src/transport/graphql/yoga.ts';
import { jitCompatible } from '../../src/transport/graphql/jit-scope.ts';

/**
 * Pins the number of database operations of a deep request, so an N+1 regression (a query per
 * item of a page) fails here. The client is the server's own, wrapped by a Prisma extension
 * that counts every model operation and raw query.
 */
const DEEP = parse(`query Deep($n: Int!) {
  reports(first: $n, filter: { namespace: ["count"] }) {
    totalCount
    nodes {
      title
      subject { key createdAt
        ipDimensions { dimensions { code entity { key } published { score } workspace { score } } }
        ratings(first: 5) { totalCount nodes { rating } }
        mentions(first: 5) { nodes { role report { title } } }
        relatedSubjects { roles sharedReports subject { kind key } }
      }
      relatedSubjects { role subject { key reports(first: 3) { totalCount nodes { outcomeCode } } } }
    }
  }
}`);

/** A score read of every part of the answer: it reaches no Prisma-backed type. */
const SCORE = parse(`query Score($ip: String!) {
  score(ip: $ip) {
    ip apiKey { name } quota { remaining }
    score { overallScore dimensions { code entity { key } evidence { reports } } }
    communitySignal { label recentQueryWindows { hits } networks { subnet { key } asn { key } } }
    override { ruleId expiresAt } memory { lastRating { createdAt } } dimensionLinks { url } publication { publishedAt }
  }
}`);

describe(`query count of a deep request (${backendName})`, () => {
  let s: TestServer;
  let viewer: NonNullable<RequestContext['viewer']>;
  beforeAll(async () => {
    s = await startTestServer();
    const key = await s.createKey('count-a', { tier: 'developer' }); // reads dimension summaries
    viewer = await s.app.verifier.verify(key.secret);
    const { GraphQLClient } = await import('graphql-request');
    const a = new GraphQLClient(`${s.url}/graphql`, { headers: { 'x-api-key': key.secret } });
    for (let i = 1; i <= 50; i++) {
      const ip = `198.51.100.${i}`;
      await writeReport(a, {
        kind: 'ipaddress',
        key: ip,
        outcomeCode: 'bot_activity',
        namespace: 'count',
        title: `r${i}`,
        relatedSubjects: [
          { kind: 'email', key: `u${i}@example.com`, role: 'linked' },
          { kind: 'domain', key: `d${i % 5}.example` },
        ],
      });
      if (i % 2) await rateIp(a, ip, -1);
    }
  });
  afterAll(() => s?.close());

  function countingClient() {
    const counter = { queries: 0 };
    const prisma = s.app.db.prisma.$extends({
      query: {
        $allOperations({ args, query }) {
          counter.queries++;
          return query(args);
        },
      },
    }) as unknown as PrismaClient;
    return { counter, prisma };
  }

  async function countFor(n: number): Promise<{ queries: number; items: number }> {
    const { counter, prisma } = countingClient();
    const ctx: RequestContext = {
      prisma,
      services: { ...s.app.services, prisma },
      viewer,
      requestId: 't',
      via: 'graphql',
      clientIp: '127.0.0.1',
    };
    const result = await execute({ schema, document: DEEP, variableValues: { n }, contextValue: ctx });
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    const data = result.data as any;
    return { queries: counter.queries, items: data.reports.nodes.length };
  }

  it('costs the same bounded number of queries for a page of 5 and of 50 reports', async () => {
    const small = await countFor(5);
    const large = await countFor(50);
    expect(small.items).toBe(5);
    expect(large.items).toBe(50);
    expect(large.queries, `5 items: ${small.queries} queries, 50 items: ${large.queries}`).toBe(small.queries);
    // The pinned figure: a change here means a new per-request query, or an N+1 that the page sizes above happen to hide.
    expect(large.queries).toBe(PINNED_QUERIES);
  });
});

describe(`query count through the served /graphql stack (${backendName})`, () => {
  let s: TestServer;
  let secret: string;
  beforeAll(async () => {
    s = await startTestServer();
    secret = (await s.createKey('count-http')).secret;
    const { GraphQLClient } = await import('graphql-request');
    const a = new GraphQLClient(`${s.url}/graphql`, { headers: { 'x-api-key': secret } });
    for (let i = 1; i <= 20; i++) {
      await writeReport(a, {
        kind: 'ipaddress',
        key: `203.0.113.${i}`,
        outcomeCode: 'spam',
        namespace: 'http',
        title: `h${i}`,
        relatedSubjects: [{ kind: 'email', key: `h${i}@example.com`, role: 'linked' }],
      });
    }
  });
  afterAll(() => s?.close());

  it('keeps the batched query count with the plugins the server runs (graphql-jit must not break the Prisma plugin)', async () => {
    let queries = 0;
    const prisma = s.app.db.prisma.$extends({
      query: {
        $allOperations({ args, query }) {
          queries++;
          return query(args);
        },
      },
    }) as unknown as PrismaClient;
    const yoga = createGraphQLServer({
      services: { ...s.app.services, prisma },
      verifier: s.app.verifier,
      log: s.app.log,
      proxies: null,
    });
    const res = await yoga.fetch(
      'http://localhost/graphql',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': secret },
        body: JSON.stringify({
          query:
            '{ reports(first: 20, filter: { namespace: ["http"] }) { nodes { title relatedSubjects { subject { key } } } } }',
        }),
      },
      {
        req: {
          socket: { remoteAddress: '127.0.0.1' },
          headers: { 'x-api-key': secret },
          headersDistinct: { 'x-api-key': [secret] },
        } as never,
      },
    ); // the server context the Node adapter would give
    const body = (await res.json()) as { data?: { reports: { nodes: unknown[] } }; errors?: unknown };
    expect(
      body.errors,
      JSON.stringify(body.errors) + s.logs.filter((l) => l.includes('"error"')).join('\n'),
    ).toBeUndefined();
    expect(body.data!.reports.nodes.length).toBe(20);
    expect(queries, 'one page of 20 reports with their related subjects').toBeLessThanOrEqual(3);
  });

  it('compiles with graphql-jit only operations that reach no Prisma-backed type', () => {
    expect(jitCompatible(schema, SCORE)).toBe(true);
    expect(jitCompatible(schema, DEEP)).toBe(false);
    expect(jitCompatible(schema, parse('{ node(id: "x") { id } }'))).toBe(false); // an interface some Prisma types implement
  });
});

/** reports page (with every nested relation), its totalCount, the related-subjects batch, their subjects. */
const PINNED_QUERIES = 4;
