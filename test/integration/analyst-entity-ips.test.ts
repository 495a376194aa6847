import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { analystClient, rateIp } from '../helpers/analyst.ts';
import type { GraphQLClient } from 'graphql-request';
import { createGraphQLServer } from '../../src/transport/graphql/yoga.ts';

/**
 * `ips` of a dimension entity, served from the per-workspace index (src/domain/analyst/entity-ips.ts)
 * instead of a scan of up to 20,000 subjects per lookup: the same answers (every IP subject of the
 * caller's workspace that resolves into the entity, oldest first, paged by cursor), kept current
 * with subjects written after the index was built, including one whose id became visible late.
 */
const A_IPS = 3_000;
const STEP = 1_398_101; // 1.0.0.0 + g × STEP, g = 1..3,000: spread over the IPv4 space

describe(`ips of a dimension entity (${backendName})`, () => {
  let s: TestServer;
  let a: GraphQLClient;
  let b: GraphQLClient;
  let aWorkspace: number;
  let aKey: string;
  /** A's IP subjects (id order) in the country the most of them fall in. */
  let country: { key: string; ips: string[] };

  beforeAll(async () => {
    s = await startTestServer();
    a = await analystClient(s, 'ips-a', 'developer'); // dimension reads need a score-eligible tier
    aKey = (await s.createKey('ips-a', { name: 'yoga' })).secret;
    b = await analystClient(s, 'ips-b', 'developer');
    const p = s.app.db.prisma;
    aWorkspace = (await p.workspace.findUniqueOrThrow({ where: { name: 'ips-a' } })).id;
    const bWorkspace = (await p.workspace.findUniqueOrThrow({ where: { name: 'ips-b' } })).id;
    // A's subjects were stored an hour ago, each with a rating; B rates a few IPs of the same networks.
    await p.$executeRawUnsafe(
      `
      INSERT INTO "Subject" ("workspaceId", kind, key, "createdAt")
      SELECT $1, 'ipaddress', host('1.0.0.0'::inet + g::bigint * ${STEP}), now() - interval '1 hour' FROM generate_series(1, ${A_IPS}) g`,
      aWorkspace,
    );
    await p.$executeRawUnsafe(
      `INSERT INTO "Rating" ("workspaceId", "subjectId", rating, note) SELECT $1, id, -1, '' FROM "Subject" WHERE "workspaceId" = $1`,
      aWorkspace,
    );
    const rows = await p.subject.findMany({
      where: { workspaceId: aWorkspace },
      orderBy: { id: 'asc' },
      select: { key: true },
    });
    const byCountry = new Map<string, string[]>();
    for (const { key } of rows) {
      const c = s.app.services.network.resolve(key).dimensions.find((d) => d.code === 'country')?.entity?.key;
      if (c) byCountry.set(c, [...(byCountry.get(c) ?? []), key]);
    }
    const [key, ips] = [...byCountry].sort((x, y) => y[1].length - x[1].length)[0]!;
    country = { key, ips };
    for (const ip of ips.slice(0, 3)) await rateIp(b, ip, 1);
    expect(bWorkspace).not.toBe(aWorkspace);
  });
  afterAll(() => s?.close());

  const PAGE = `query($key: String!, $first: Int, $after: String, $last: Int, $before: String) {
    dimensionEntity(code: country, key: $key) { ips(first: $first, after: $after, last: $last, before: $before) {
      totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } nodes { key }
    } }
  }`;
  type Page = {
    totalCount: number;
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string; endCursor: string };
    nodes: Array<{ key: string }>;
  };
  const page = async (client: GraphQLClient, vars: Record<string, unknown>) =>
    (await client.request<{ dimensionEntity: { ips: Page } }>(PAGE, { key: country.key, ...vars })).dimensionEntity.ips;

  it('lists every IP subject of the workspace in the entity, oldest first, forward and backward by cursor', async () => {
    expect(country.ips.length).toBeGreaterThan(200);
    const forward: string[] = [];
    let after: string | undefined;
    for (;;) {
      const p = await page(a, { first: 100, after });
      expect(p.totalCount).toBe(country.ips.length);
      forward.push(...p.nodes.map((n) => n.key));
      if (!p.pageInfo.hasNextPage) break;
      after = p.pageInfo.endCursor;
    }
    expect(forward).toEqual(country.ips);
    const last = await page(a, { last: 7 });
    expect(last.nodes.map((n) => n.key)).toEqual(country.ips.slice(-7));
    const before = await page(a, { last: 5, before: last.pageInfo.startCursor });
    expect(before.nodes.map((n) => n.key)).toEqual(country.ips.slice(-12, -7));
  });

  it("shows only the caller's own IPs", async () => {
    const p = await page(b, { first: 100 });
    expect(p.nodes.map((n) => n.key)).toEqual(country.ips.slice(0, 3));
    expect(p.totalCount).toBe(3);
  });

  it('follows subjects written after the index was built, in id order even when an id became visible late', async () => {
    await page(a, { first: 1 }); // the index exists
    const [fresh, late, newest] = unusedIpsIn(country, 3) as [string, string, string];
    await rateIp(a, fresh, -1);
    const afterWrite = await page(a, { last: 1 });
    expect(afterWrite.totalCount).toBe(country.ips.length + 1);
    expect(afterWrite.nodes.map((n) => n.key)).toEqual([fresh]);

    // A subject whose id was taken before the newest one's but committed after the newest was read.
    const p = s.app.db.prisma;
    const [{ gap }] = await p.$queryRawUnsafe<[{ gap: number }]>(
      `SELECT nextval(pg_get_serial_sequence('"Subject"', 'id'))::int AS gap`,
    );
    await rateIp(a, newest, -1);
    expect((await page(a, { last: 1 })).nodes).toEqual([{ key: newest }]);
    await p.$executeRawUnsafe(
      `INSERT INTO "Subject" (id, "workspaceId", kind, key) VALUES ($1, $2, 'ipaddress', $3)`,
      gap,
      aWorkspace,
      late,
    );
    await p.$executeRawUnsafe(
      `INSERT INTO "Rating" ("workspaceId", "subjectId", rating, note) VALUES ($1, $2, 1, '')`,
      aWorkspace,
      gap,
    );
    const all = await page(a, { last: 3 });
    expect(all.totalCount).toBe(country.ips.length + 3);
    expect(all.nodes.map((n) => n.key)).toEqual([fresh, late, newest]);
  });

  /** `n` addresses of the country's first IP's /24 that resolve into the country and are no subject yet. */
  function unusedIpsIn(c: { key: string; ips: string[] }, n: number): string[] {
    const taken = new Set(c.ips);
    const prefix = c.ips[0]!.split('.').slice(0, 3).join('.');
    const found = Array.from({ length: 254 }, (_, i) => `${prefix}.${i + 1}`).filter(
      (ip) =>
        !taken.has(ip) &&
        s.app.services.network.resolve(ip).dimensions.find((d) => d.code === 'country')?.entity?.key === c.key,
    );
    expect(found.length).toBeGreaterThanOrEqual(n);
    return found.slice(0, n);
  }

  it('reads each subject once per process, not once per lookup: 30 aliases read their pages only', async () => {
    // The audit's request: 30 aliases of `ips` (27-29 s when each scanned the workspace's IP subjects).
    const query = `{ ${Array.from({ length: 30 }, (_, i) => `e${i}: dimensionEntity(code: country, key: "${country.key}") { ips(first: ${(i % 5) + 1}) { totalCount nodes { key } } }`).join(' ')} }`;
    let rowsRead = 0;
    const prisma = s.app.db.prisma.$extends({
      query: {
        async $allOperations({ args, query: run }) {
          const result = await run(args);
          if (Array.isArray(result)) rowsRead += result.length;
          return result;
        },
      },
    }) as unknown as typeof s.app.db.prisma;
    const yoga = createGraphQLServer({
      services: { ...s.app.services, prisma },
      verifier: s.app.verifier,
      log: s.app.log,
      proxies: null,
    });
    const ask = async () => {
      rowsRead = 0;
      const res = await yoga.fetch(
        'http://localhost/graphql',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': aKey },
          body: JSON.stringify({ query }),
        },
        {
          req: {
            socket: { remoteAddress: '127.0.0.1' },
            headers: { 'x-api-key': aKey },
            headersDistinct: { 'x-api-key': [aKey] },
          } as never,
        },
      );
      const body = (await res.json()) as any;
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      expect(body.data.e0.ips.totalCount).toBeGreaterThan(200);
      return rowsRead;
    };
    const first = await ask(); // builds this server's index: every IP subject of the workspace, once
    expect(first).toBeGreaterThanOrEqual(A_IPS);
    // Then each alias reads its page of 5 (and the key/workspace lookups): no scan.
    expect(await ask()).toBeLessThanOrEqual(30 * 5 + 10);
  });

  it('answers the entity of one IP with that IP', async () => {
    const ip = country.ips[5]!;
    const data = await a.request<any>(
      `{ dimensionEntity(code: ip, key: "${ip}") { ips(first: 5) { totalCount nodes { key } } } }`,
    );
    expect(data.dimensionEntity.ips).toEqual({ totalCount: 1, nodes: [{ key: ip }] });
  });
});
