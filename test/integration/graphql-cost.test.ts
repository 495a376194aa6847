import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { analystClient, writeReport } from '../helpers/analyst.ts';
import { encodeNodeId } from '../../src/transport/graphql/node-id.ts';

/**
 * The cost estimate counts what a request can actually return (audit item: `nodes(ids:)` costed as
 * one item whatever its ids, ids in variables escaping the limit, plain lists of up to 50 costed as
 * 5), from a Free workspace. Costs are asserted exactly: each is worked out by hand in a comment from
 * the rule (every field costs its weight, times the items its parents can list).
 */
describe(`GraphQL cost of lists, ids and variables (${backendName})`, () => {
  let s: TestServer;
  let key: string;
  let reportIds: string[];

  beforeAll(async () => {
    s = await startTestServer();
    const client = await analystClient(s, 'cost', 'developer'); // the cheapest tier that may read dimensions (ip below)
    key = (await s.createKey('cost', { name: 'second' })).secret;
    const written = [];
    for (let i = 0; i < 3; i++) {
      written.push(
        await writeReport(client, {
          kind: 'email',
          key: `user${i}@example.com`,
          outcomeCode: 'spam',
          relatedSubjects: [
            { kind: 'ipaddress', key: `198.51.100.${i + 1}` },
            { kind: 'domain', key: `d${i}.example` },
          ],
        }),
      );
    }
    reportIds = written.map((r) => r.id);
  });
  afterAll(() => s?.close());

  async function gql(query: string, variables?: Record<string, unknown>) {
    const res = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      signal: AbortSignal.timeout(15_000),
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query, variables }),
    });
    const json: any = await res.json();
    return { json, show: JSON.stringify(json).slice(0, 600) };
  }
  const cost = async (query: string, variables?: Record<string, unknown>) => {
    const r = await gql(query, variables);
    expect(r.json.errors, r.show).toBeUndefined();
    return r.json.extensions.cost.requested as number;
  };
  const refusal = async (query: string, variables?: Record<string, unknown>) => {
    const r = await gql(query, variables);
    expect(r.json.data, r.show).toBeUndefined();
    return r.json.errors?.[0]?.extensions;
  };
  const ids = (n: number) => Array.from({ length: n }, (_, i) => reportIds[i] ?? encodeNodeId('Report', 1_000_000 + i));

  it('costs nodes(ids:) per id, as a literal or a variable, and refuses more than 100 ids naming the limit', async () => {
    const byVariable = 'query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Report { outcomeCode } } }';
    const byLiteral = (n: number) => `{ nodes(ids: ${JSON.stringify(ids(n))}) { id ... on Report { outcomeCode } } }`;
    // nodes 1 + n × (id 1 + outcomeCode 1)
    expect(await cost(byVariable, { ids: ids(1) })).toBe(3);
    expect(await cost(byVariable, { ids: ids(100) })).toBe(201);
    expect(await cost(byLiteral(100))).toBe(201);
    // The audit's request had 400 ids; a Free workspace's answer to it ran 27 s.
    for (const n of [101, 400]) {
      const expected = { code: 'query_too_complex', limit: 'maxNodeIds', maximum: 100, actual: n };
      expect(await refusal(byVariable, { ids: ids(n) })).toMatchObject(expected);
      expect(await refusal(byLiteral(n))).toMatchObject(expected);
    }
    // The ids still answer in order, each unknown one null.
    const answer = await gql(byVariable, { ids: [reportIds[1], encodeNodeId('Report', 999_999)] });
    expect(answer.json.data.nodes, answer.show).toEqual([{ id: reportIds[1], outcomeCode: 'spam' }, null]);
  });

  it('counts every plain list at its real maximum, or at the limit the query asks for', async () => {
    // reports 1 + 10 × (nodes 1 + relatedSubjects (1 + 50 × role 1)): a report links up to 50 subjects.
    expect(await cost('{ reports(first: 10) { nodes { relatedSubjects { role } } } }')).toBe(521);
    // ... or as many as `limit` takes: 1 + 10 × (1 + 1 + 3).
    expect(await cost('{ reports(first: 10) { nodes { relatedSubjects(limit: 3) { role } } } }')).toBe(51);
    expect(
      await cost('query($l: Int) { reports(first: 10) { nodes { relatedSubjects(limit: $l) { role } } } }', { l: 3 }),
    ).toBe(51);
    // subject 1 + relatedSubjects (1 + 50 × roles 1): a subject lists up to 50 related subjects.
    expect(await cost('{ subject(kind: email, key: "user0@example.com") { relatedSubjects { roles } } }')).toBe(52);
    // topSubjects without `limit` returns its default of 10: 1 + 10 × reports 1.
    expect(await cost('{ topSubjects { reports } }')).toBe(11);
    // ip 1 + dimensions (1 + 8 × code 1): always the eight dimensions.
    expect(await cost('{ ip(address: "8.8.8.8") { dimensions { code } } }')).toBe(10);
    // The limit is a real one: the answer holds at most that many, and a limit out of range is refused.
    const limited = await gql('{ reports(first: 1) { nodes { relatedSubjects(limit: 1) { role } } } }');
    expect(limited.json.data.reports.nodes[0].relatedSubjects, limited.show).toHaveLength(1);
    const tooMany = await gql(
      '{ subject(kind: email, key: "user0@example.com") { relatedSubjects(limit: 51) { roles } } }',
    );
    expect(tooMany.json.errors?.[0]?.extensions, tooMany.show).toMatchObject({ code: 'invalid_request' });
  });

  it('counts variables exactly like literals, their defaults included', async () => {
    // reports 1 + 100 × (nodes 1 + databaseId 1)
    expect(await cost('{ reports(first: 100) { nodes { databaseId } } }')).toBe(201);
    expect(await cost('query($n: Int = 100) { reports(first: $n) { nodes { databaseId } } }')).toBe(201);
    expect(await cost('query($n: Int) { reports(first: $n) { nodes { databaseId } } }', { n: 100 })).toBe(201);
    // A sent null is null (the default page of 20), not the variable's default.
    expect(await cost('query($n: Int = 50) { reports(first: $n) { nodes { databaseId } } }', { n: null })).toBe(41);
    expect(await refusal('query($n: Int = 500) { reports(first: $n) { nodes { databaseId } } }')).toMatchObject({
      code: 'query_too_complex',
      limit: 'maxPageSize',
      actual: 500,
    });
    expect(await refusal('query($n: Int = 500) { topSubjects(limit: $n) { reports } }')).toMatchObject({
      code: 'query_too_complex',
      limit: 'maxPageSize',
      actual: 500,
    });
  });

  it('keeps a cost per document only for the values it was estimated with', async () => {
    const doc =
      'query Same($ids: [ID!]!, $l: Int) { nodes(ids: $ids) { ... on Report { relatedSubjects(limit: $l) { role } } } }';
    // nodes 1 + n × relatedSubjects (1 + l × role 1)
    const sequence: Array<[number, number | undefined, number]> = [
      [2, 1, 5],
      [50, 1, 101],
      [2, 1, 5],
      [2, 10, 23],
      [2, undefined, 103],
      [50, 1, 101],
    ];
    for (const [n, l, expected] of sequence) {
      expect(await cost(doc, { ids: ids(n), ...(l === undefined ? {} : { l }) }), `${n} ids, limit ${l}`).toBe(
        expected,
      );
    }
    expect(await refusal(doc, { ids: ids(101), l: 1 })).toMatchObject({ limit: 'maxNodeIds' });
  });

  it("weighs long texts by their longest value, so the budget bounds the answer's size", async () => {
    // reports 1 + 100 × (nodes 1 + details 100): details hold up to 10,000 characters, 100 per point.
    expect(await cost('{ reports(first: 100) { nodes { details } } }')).toBe(10_101);
    // Ten such pages could answer 10 million characters: over the budget.
    const tenPages = `{ ${Array.from({ length: 10 }, (_, i) => `p${i}: reports(first: 100) { nodes { details } }`).join(' ')} }`;
    expect(await refusal(tenPages)).toMatchObject({
      code: 'query_too_complex',
      limit: 'maxCost',
      actual: 101_010,
      maximum: 100_000,
    });
  });
});
