import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, type GraphQLClient } from 'graphql-request';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { analystClient, writeReport, type ReportSeed } from '../helpers/analyst.ts';

const PAGE = gql`query Page($filter: ReportFilter, $first: Int, $after: String, $last: Int, $before: String) {
  reports(filter: $filter, first: $first, after: $after, last: $last, before: $before) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    edges { cursor node { databaseId title } }
  }
}`;

type Page = {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string; endCursor: string };
  edges: Array<{ cursor: string; node: { databaseId: number; title: string } }>;
};

describe(`reports connection (${backendName})`, () => {
  let s: TestServer;
  let a: GraphQLClient;
  const page = async (vars: Record<string, unknown>) => (await a.request<{ reports: Page }>(PAGE, vars)).reports;
  const titles = (p: Page) => p.edges.map((e) => e.node.title);

  beforeAll(async () => {
    s = await startTestServer();
    a = await analystClient(s, 'reports-a');
  });
  afterAll(() => s?.close());

  it('pages forward and backward with cursors that stay put while reports are inserted between pages', async () => {
    const filter = { namespace: ['paging'] };
    const seed = (title: string) =>
      writeReport(a, { kind: 'domain', key: `${title}.example`, outcomeCode: 'spam', title, namespace: 'paging' });
    for (const t of ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']) await seed(t);

    const first = await page({ filter, first: 3 });
    expect(titles(first)).toEqual(['p7', 'p6', 'p5']);
    expect(first.totalCount).toBe(7);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true });

    await seed('p8'); // newer than everything: must not shift the next page
    const second = await page({ filter, first: 3, after: first.pageInfo.endCursor });
    expect(titles(second)).toEqual(['p4', 'p3', 'p2']);
    expect(second.totalCount).toBe(8);
    const third = await page({ filter, first: 3, after: second.pageInfo.endCursor });
    expect(titles(third)).toEqual(['p1']);
    expect(third.pageInfo.hasNextPage).toBe(false);

    // Backward from the end, then before that page's start, with another insert in between.
    const tail = await page({ filter, last: 3 });
    expect(titles(tail)).toEqual(['p3', 'p2', 'p1']);
    expect(tail.pageInfo.hasPreviousPage).toBe(true);
    await seed('p9');
    const before = await page({ filter, last: 3, before: tail.pageInfo.startCursor });
    expect(titles(before)).toEqual(['p6', 'p5', 'p4']);
    const top = await page({ filter, last: 10, before: before.pageInfo.startCursor });
    expect(titles(top)).toEqual(['p9', 'p8', 'p7']);
    expect(top.pageInfo.hasPreviousPage).toBe(false);
  });

  it('applies every filter', async () => {
    const ns = 'filters';
    const w = (seed: Omit<ReportSeed, 'namespace'> & { namespace?: string }) =>
      writeReport(a, { namespace: ns, ...seed });
    const email = await w({
      kind: 'email',
      key: 'mule@example.com',
      outcomeCode: 'account_takeover',
      severity: 'critical',
      tags: ['ato', 'wave-1'],
      title: 'Mule account',
      summary: 'Takeover wave',
    });
    const ip = await w({
      kind: 'ipaddress',
      key: '203.0.113.9',
      outcomeCode: 'bot_activity',
      severity: 'low',
      tags: ['wave-1'],
      title: 'Bot burst',
      summary: 'Many LOGINS from one host',
      sharePolicy: 'amber_share',
    });
    const url = await w({
      kind: 'url',
      key: 'https://phish.example/login',
      outcomeCode: 'fraud_watch',
      severity: 'high',
      title: 'Phishing page',
      summary: 'Clone of login',
    });
    const other = await w({
      kind: 'domain',
      key: 'elsewhere.example',
      outcomeCode: 'spam',
      namespace: 'other-ns',
      title: 'Other namespace',
    });
    const ids = async (filter: Record<string, unknown>) =>
      (await page({ filter: { namespace: [ns, 'other-ns'], ...filter }, first: 100 })).edges
        .map((e) => e.node.databaseId)
        .sort((x, y) => x - y);
    const sorted = (...r: Array<{ databaseId: number }>) => r.map((x) => x.databaseId).sort((x, y) => x - y);

    expect(await ids({})).toEqual(sorted(email, ip, url, other));
    expect(await ids({ kind: ['email', 'url'] })).toEqual(sorted(email, url));
    expect(await ids({ outcomeCode: ['bot_activity'] })).toEqual(sorted(ip));
    expect(await ids({ severity: ['critical', 'high'] })).toEqual(sorted(email, url));
    expect(await ids({ tags: ['wave-1'] })).toEqual(sorted(email, ip));
    expect(await ids({ tags: ['wave-1', 'ato'] })).toEqual(sorted(email));
    expect(await ids({ namespace: ['other-ns'] })).toEqual(sorted(other));
    expect(await ids({ sharePolicy: ['amber_share'] })).toEqual(sorted(ip));
    expect(await ids({ text: 'logins' })).toEqual(sorted(ip)); // summary, case-insensitive
    expect(await ids({ text: 'PHISHING' })).toEqual(sorted(url)); // title
    expect(await ids({ from: url.createdAt })).toEqual(sorted(url, other));
    expect(await ids({ to: ip.createdAt })).toEqual(sorted(email));
    expect(await ids({ from: email.createdAt, to: url.createdAt, kind: ['ipaddress'] })).toEqual(sorted(ip));

    const bad = await a.request(PAGE, { filter: { outcomeCode: ['nope'] } }).catch((e) => e);
    // An enum list: GraphQL refuses the value before the resolver, naming where it is.
    expect(bad.response.errors[0]).toMatchObject({
      message: expect.stringContaining('"filter.outcomeCode[0]"'),
      extensions: { code: 'invalid_request' },
    });
  });

  it("reports each response's cost in extensions and refuses queries over a limit with query_too_complex", async () => {
    const ok = await a.rawRequest<any>(`{ reports(first: 10) { nodes { title subject { key } } } }`);
    expect(ok.extensions).toMatchObject({ cost: { requested: expect.any(Number), maximum: 100000 } });
    expect((ok.extensions as any).cost.requested).toBeGreaterThan(10);

    const failure = async (query: string, variables?: Record<string, unknown>) => {
      const e = await a.request(query, variables).catch((err) => err);
      expect(e.response?.errors, JSON.stringify(e.response ?? String(e))).toBeDefined();
      return e.response.errors[0].extensions;
    };
    expect(await failure(`{ reports(first: 101) { totalCount } }`)).toMatchObject({
      code: 'query_too_complex',
      limit: 'maxPageSize',
      actual: 101,
    });
    expect(await failure(`query($n: Int) { reports(last: $n) { totalCount } }`, { n: 500 })).toMatchObject({
      code: 'query_too_complex',
      limit: 'maxPageSize',
    });
    const deep = `{ subject(kind: email, key: "a@b.example") { ${'reports { nodes { subject { '.repeat(6)}key${' } } }'.repeat(6)} } }`;
    expect(await failure(deep)).toMatchObject({ code: 'query_too_complex', limit: 'maxDepth' });
    const aliases = `{ ${Array.from({ length: 31 }, (_, i) => `a${i}: viewer { apiKey { name } }`).join(' ')} }`;
    expect(await failure(aliases)).toMatchObject({ code: 'query_too_complex', limit: 'maxAliases', actual: 31 });
    const tokens = `{ viewer { ${'apiKey { name } '.repeat(800)} } }`;
    expect(await failure(tokens)).toMatchObject({ code: 'query_too_complex', limit: 'maxTokens' });
    const costly = `{ reports(first: 100) { nodes { subject { reports(first: 100) { nodes { subject { reports(first: 100) { nodes { title } } } } } } } } }`;
    expect(await failure(costly)).toMatchObject({
      code: 'query_too_complex',
      limit: 'maxCost',
      actual: expect.any(Number),
    });
  });

  it('keeps costs per document but never serves one for other page sizes, and refuses an over-limit size every time', async () => {
    const paged = `query Paged($n: Int, $m: Int) { reports(first: $n) { nodes { subject { reports(first: $m) { nodes { title } } } } } }`;
    const cost = async (variables: Record<string, unknown>) =>
      ((await a.rawRequest<any>(paged, variables)).extensions as any).cost.requested as number;
    const small = await cost({ n: 2, m: 2 });
    const large = await cost({ n: 20, m: 20 });
    expect(large, `cost for 20 × 20 (${large}) vs 2 × 2 (${small})`).toBeGreaterThan(small * 10);
    expect(await cost({ n: 2, m: 2 })).toBe(small); // the same again: the same answer
    for (let i = 0; i < 2; i++) {
      const e = await a.request(paged, { n: 2, m: 500 }).catch((err) => err);
      expect(e.response?.errors?.[0]?.extensions, JSON.stringify(e.response ?? String(e))).toMatchObject({
        code: 'query_too_complex',
        limit: 'maxPageSize',
      });
    }
  });
});
