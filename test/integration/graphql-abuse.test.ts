import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';

/**
 * GraphQL abuse: each refused with a code before it costs real work (nothing executed, nothing
 * counted, nothing written), and answered within a bound (a hang fails the test). Depth, alias,
 * token, page-size and cost limits on plain documents are in analyst-reports.test.ts; this file
 * covers fragments, batching, several operations, private schema parts, and odd arguments.
 */
const BOUND_MS = 15_000; // a correctness bound (no answer = a hang), not a speed target

describe(`GraphQL abuse (${backendName})`, () => {
  let s: TestServer;
  let key: string;
  let quotaUsed: () => Promise<number>;
  const rows = async () => ({
    ratings: await s.app.db.prisma.rating.count(),
    reports: await s.app.db.prisma.report.count(),
  });

  beforeAll(async () => {
    s = await startTestServer();
    key = (await s.createKey('abuse', { tier: 'enterprise' })).secret;
    const ws = await s.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: 'abuse' } });
    const tier = s.app.services.tiers.get('enterprise');
    quotaUsed = async () => (await s.app.services.meter.peek(ws.id, tier)).usedToday;
  });
  afterAll(() => s?.close());

  async function gql(body: unknown, headers: Record<string, string> = {}, method = 'POST') {
    const res = await fetch(`${s.url}/graphql`, {
      method,
      signal: AbortSignal.timeout(BOUND_MS),
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': key, ...headers },
      ...(method === 'POST' ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = { unparsed: text };
    }
    return { status: res.status, json, show: `${res.status} ${text.slice(0, 500)}` };
  }
  const codes = (r: { json: any }) => (r.json.errors ?? []).map((e: any) => e.extensions?.code);

  /** n fragments, each spreading the next twice: 2^n expansions of a ~10n-token document. */
  function fanOut(n: number, leaf: string, type = 'Query') {
    let doc = `query { ...F0 }\n`;
    for (let i = 0; i < n; i++) doc += `fragment F${i} on ${type} { ...F${i + 1} ...F${i + 1} }\n`;
    return `${doc}fragment F${n} on ${type} { ${leaf} }`;
  }

  it('refuses fragments that fan out exponentially by their estimated cost, promptly and without running them', async () => {
    const before = await quotaUsed();
    // 280 fragments (~2,900 tokens) would expand to 2^280 selections: this used to take the estimator forever.
    const r = await gql({ query: fanOut(280, 'score(ip: "8.8.8.8") { ip }') });
    expect(r.json.errors?.[0]?.extensions, r.show).toMatchObject({ code: 'query_too_complex', limit: 'maxCost' });
    expect(r.json.data, r.show).toBeUndefined();
    expect(await quotaUsed()).toBe(before);
    // A small fan-out is only what it expands to: 2^4 copies of one field, merged, run once.
    const small = await gql({ query: fanOut(4, 'viewer { apiKey { name } }') });
    expect(small.json, small.show).toMatchObject({ data: { viewer: { apiKey: { name: 'test key' } } } });
  });

  it('counts depth through fragments', async () => {
    const hop = (i: number) => `fragment H${i} on Subject { reports { nodes { subject { ...H${i + 1} } } } }`;
    const doc = `{ subject(kind: email, key: "a@b.example") { ...H0 } }\n${Array.from({ length: 6 }, (_, i) => hop(i)).join('\n')}\nfragment H6 on Subject { key }`;
    const r = await gql({ query: doc });
    expect(r.json.errors?.[0]?.extensions, r.show).toMatchObject({ code: 'query_too_complex', limit: 'maxDepth' });
  });

  it('refuses fragment cycles (direct, indirect, and inside a fan-out) as invalid, without running anything', async () => {
    const before = await rows();
    for (const query of [
      'query { ...A } fragment A on Query { viewer { apiKey { name } } ...A }',
      'mutation { ...A } fragment A on Mutation { rate(input: { ip: "203.0.113.1", rating: 1 }) { replayed } ...B } fragment B on Mutation { ...A }',
      fanOut(200, '...F0'),
    ]) {
      const r = await gql({ query });
      expect(r.status, r.show).toBeLessThan(500);
      expect(codes(r), r.show).toContain('GRAPHQL_VALIDATION_FAILED');
      expect(
        r.json.errors.some((e: any) => /within itself/.test(e.message)),
        r.show,
      ).toBe(true);
      expect(r.json.data, r.show).toBeUndefined();
    }
    expect(await rows()).toEqual(before);
  });

  it('counts aliases inside fragments, and refuses an alias flood of score before counting any of it', async () => {
    const before = await quotaUsed();
    const aliases = Array.from({ length: 31 }, (_, i) => `s${i}: score(ip: "8.8.8.8") { ip }`).join(' ');
    const r = await gql({ query: `{ ...Flood } fragment Flood on Query { ${aliases} }` });
    expect(r.json.errors?.[0]?.extensions, r.show).toMatchObject({
      code: 'query_too_complex',
      limit: 'maxAliases',
      actual: 31,
    });
    expect(await quotaUsed()).toBe(before);
  });

  it('does not take batched operations: a JSON array is refused whole, its mutations unwritten', async () => {
    const before = await rows();
    const op = { query: 'mutation { rate(input: { ip: "203.0.113.2", rating: -1 }) { replayed } }' };
    for (const batch of [[op, op], Array.from({ length: 400 }, () => op), []]) {
      const r = await gql(batch);
      expect(r.status, r.show).toBe(400);
      expect(codes(r), r.show).toEqual(['BAD_REQUEST']);
    }
    expect(await rows()).toEqual(before);
  });

  it('runs one operation per request: several without operationName are refused unrun; with it, only that one runs', async () => {
    const before = await rows();
    const doc =
      'mutation A { rate(input: { ip: "203.0.113.3", rating: 1 }) { replayed } } mutation B { rate(input: { ip: "203.0.113.4", rating: 1 }) { replayed } }';
    const none = await gql({ query: doc });
    expect(none.status, none.show).toBe(400);
    expect(codes(none), none.show).toEqual(['OPERATION_RESOLUTION_FAILURE']);
    const unknown = await gql({ query: doc, operationName: 'C' });
    expect(codes(unknown), unknown.show).toEqual(['OPERATION_RESOLUTION_FAILURE']);
    expect(await rows()).toEqual(before);
    const one = await gql({ query: doc, operationName: 'B' });
    expect(one.json, one.show).toMatchObject({ data: { rate: { replayed: false } } });
    expect((await rows()).ratings).toBe(before.ratings + 1);
  });

  it('refuses a mutation sent by GET, and subscriptions (the schema has none) as invalid rather than failing inside', async () => {
    const before = await rows();
    const get = await fetch(
      `${s.url}/graphql?query=${encodeURIComponent('mutation { rate(input: { ip: "203.0.113.5", rating: 1 }) { replayed } }')}`,
      { headers: { 'x-api-key': key, accept: 'application/json' }, signal: AbortSignal.timeout(BOUND_MS) },
    );
    const getBody = await get.json();
    expect([get.status, getBody.errors?.[0]?.extensions?.code]).toEqual([405, 'BAD_REQUEST']);
    const sub = await gql({ query: 'subscription { viewer { apiKey { name } } }' });
    expect(codes(sub), sub.show).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(await rows()).toEqual(before);
  });

  it('shows no private part of the data model in introspection and refuses asking for one', async () => {
    const r = await gql({
      query: '{ __schema { types { name fields { name args { name } } inputFields { name } } } }',
    });
    const types: Array<{
      name: string;
      fields: Array<{ name: string; args: Array<{ name: string }> }> | null;
      inputFields: Array<{ name: string }> | null;
    }> = r.json.data.__schema.types;
    const names = types.flatMap((t) => [
      t.name,
      ...(t.fields ?? []).flatMap((f) => [f.name, ...f.args.map((a) => a.name)]),
      ...(t.inputFields ?? []).map((f) => f.name),
    ]);
    // The one secret the graph hands out is a webhook endpoint's signing secret, to its own workspace, once: in the
    // answer of the creation or rotation (WebhookEndpointWithSecret), never on the endpoint itself (docs/webhooks.md).
    const signingSecret = new Set([
      'WebhookEndpointWithSecret',
      'secret',
      'rotateWebhookEndpointSecret',
      'previousSecretValidUntil',
    ]);
    expect(
      names.filter(
        (n) =>
          !signingSecret.has(n) &&
          /hash|pepper|secret|password|session|csrf|token|smtp|paypal|provider|lastUsed|workspaceId|accountId/i.test(n),
      ),
    ).toEqual([]);
    expect(types.filter((t) => t.fields?.some((f) => f.name === 'secret')).map((t) => t.name)).toEqual([
      'WebhookEndpointWithSecret',
    ]);
    const typeNames = new Set(types.map((t) => t.name));
    for (const model of [
      'Account',
      'ApiKey',
      'WebSession',
      'IdempotencyRecord',
      'ProviderEvent',
      'ProviderCancellation',
      'MailOutbox',
      'SubscriptionRequest',
      'Feed',
      'FeedEntry',
      'Tier',
      'Workspace',
      'PublishedSummary',
      'PublicationImagePart',
    ]) {
      expect(typeNames.has(model), `${model} is exposed`).toBe(false);
    }
    const direct = await gql({ query: '{ a: __type(name: "ApiKey") { name } b: __type(name: "Account") { name } }' });
    expect(direct.json.data, direct.show).toEqual({ a: null, b: null });
    const field = await gql({ query: '{ viewer { apiKey { name keyHash } workspace { id } } }' });
    expect(codes(field), field.show).toEqual(['GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_VALIDATION_FAILED']);
    // Deep introspection (types → fields → type → fields → …) is cut by graphql's introspection depth rule.
    const deep = await gql({
      query: '{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }',
    });
    expect(codes(deep), deep.show).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });

  it('answers global ids of types the graph does not expose, or out of range, as invalid ids', async () => {
    const id = (text: string) => Buffer.from(text).toString('base64url');
    for (const text of [
      'ApiKey:1',
      'Account:1',
      'WebSession:1',
      'Workspace:1',
      'Node:1',
      '__Schema:1',
      'Report:2147483648',
      'Rating:9999999999',
      'Subject:0',
    ]) {
      const r = await gql({ query: 'query($id: ID!) { node(id: $id) { id } }', variables: { id: id(text) } });
      expect(r.json.errors?.[0]?.extensions?.code, `${text}: ${r.show}`).toBe('invalid_request');
      expect(r.json.data, r.show).toEqual({ node: null });
    }
    const known = await gql({
      query: 'query($id: ID!) { node(id: $id) { id } }',
      variables: { id: id('Report:2147483647') },
    });
    expect(known.json, known.show).toMatchObject({ data: { node: null } });
    expect(known.json.errors, known.show).toBeUndefined();
  });

  it('answers bad paging arguments, out-of-range timestamps and mistyped variables as invalid input, never internal errors', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['{ reports(after: "not a cursor") { totalCount } }', {}],
      ['{ reports(first: -1) { totalCount } }', {}],
      ['{ subject(kind: ipaddress, key: "8.8.8.8") { ratings(before: "x") { totalCount } } }', {}],
      ['{ ratingsOfIp(ip: "8.8.8.8", after: "") { totalCount } }', {}],
      [
        'query($t: DateTime!) { reportCountsByOutcome(from: $t, to: "2026-01-01T00:00:00Z") { day } }',
        { t: '-271821-04-20T00:00:00Z' },
      ],
      ['query($t: DateTime) { ratingsOfIp(ip: "8.8.8.8", to: $t) { totalCount } }', { t: 'yesterday' }],
      [
        'query($f: ReportFilter) { reports(filter: $f) { totalCount } }',
        { f: { namespace: ['\u0000'], text: '\ud800' } },
      ],
      ['query($ip: String!) { score(ip: $ip) { ip } }', { ip: null }],
      ['query($ip: String!) { score(ip: $ip) { ip } }', { ip: ['8.8.8.8'] }],
    ];
    for (const [query, variables] of cases) {
      const r = await gql({ query, variables });
      expect(r.status, r.show).toBeLessThan(500);
      expect(codes(r).length, `${query}: ${r.show}`).toBeGreaterThan(0);
      expect(codes(r), `${query}: ${r.show}`).not.toContain('internal_error');
      expect(
        codes(r).every((c: unknown) => typeof c === 'string'),
        r.show,
      ).toBe(true);
    }
    const literal = await gql({ query: '{ ratingsOfIp(ip: "8.8.8.8", from: [1]) { totalCount } }' });
    expect(codes(literal), literal.show).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });

  it('reads at most MAX_BODY_BYTES of a request and only JSON, with coded answers', async () => {
    const big = await gql({ query: '{ __typename }', variables: { pad: 'x'.repeat(70_000) } });
    expect([big.status, codes(big)[0]], big.show).toEqual([413, 'payload_too_large']);
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/graphql',
    ]) {
      const r = await gql('{"query":"{ __typename }"}', { 'content-type': type });
      expect([r.status, codes(r)[0]], r.show).toEqual([415, 'unsupported_media_type']);
    }
    // JSON in any spelling of its media type is JSON.
    const upper = await gql('{"query":"{ __typename }"}', { 'content-type': 'APPLICATION/JSON ; charset=UTF-8' });
    expect(upper.json, upper.show).toMatchObject({ data: { __typename: 'Query' } });
  });

  it('treats a repeated key header as conflicting, on GraphQL and REST alike', async () => {
    // fetch would merge repeated headers into one; node:http sends each line.
    const { request } = await import('node:http');
    const answer = (path: string, body: string) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const url = new URL(path, s.url);
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: { 'x-api-key': [key, key], 'content-type': 'application/json' },
            timeout: BOUND_MS,
          },
          (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const g = await answer('/graphql', '{"query":"{ viewer { apiKey { name } } }"}');
    expect([g.status, g.body.errors?.[0]?.extensions?.code], JSON.stringify(g.body)).toEqual([
      400,
      'conflicting_api_keys',
    ]);
    const r = await answer('/risk_api/dimensions/', '{"ip":"8.8.8.8"}');
    expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([400, 'conflicting_api_keys']);
  });
});
