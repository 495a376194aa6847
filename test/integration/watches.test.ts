/**
 * Watches on the API-key surfaces (docs/api.md, watches): REST and GraphQL create, list, update and delete; coded
 * refusals that change nothing; the per-workspace bound; and another workspace neither seeing nor changing a
 * watch; on both backends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphQLClient, gql } from 'graphql-request';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { WATCH_LIMITS } from '../../src/domain/watches/schemas.ts';

const WATCH =
  'id targetKind target scoreThreshold note author { kind id label } createdAt lastScore lastLevel lastPublicationVersion lastSpiking';

describe(`watches (${backendName})`, () => {
  let s: TestServer;
  let a: Record<string, string>;
  let b: Record<string, string>;
  let wsA: number;
  let gqlA: GraphQLClient;
  beforeAll(async () => {
    s = await startTestServer();
    const keyA = await s.createKey('watches-a', { tier: 'developer', name: 'soc key' });
    a = { 'x-api-key': keyA.secret };
    b = { 'x-api-key': (await s.createKey('watches-b', { tier: 'developer' })).secret };
    wsA = (await s.app.db.prisma.apiKey.findFirstOrThrow({ where: { prefix: keyA.prefix } })).workspaceId;
    gqlA = new GraphQLClient(`${s.url}/graphql`, { headers: a });
  });
  afterAll(async () => {
    await s?.close();
  });

  const count = () => s.app.db.prisma.watch.count({ where: { workspaceId: wsA } });

  it('REST creates, lists, updates and deletes watches, authored by the key', async () => {
    const made = await s.post(
      '/risk_api/watches/',
      { target: ' 2001:DB8::1 ', score_threshold: 60, note: 'vpn exit' },
      a,
    );
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({
      ok: true,
      endpoint: 'watches_create',
      quota: { counted: false, reason: 'free_endpoint' },
    });
    const w = made.body.watch;
    expect(w).toMatchObject({
      target_kind: 'ip',
      target: '2001:db8::1',
      score_threshold: 60,
      note: 'vpn exit',
      author: { kind: 'api_key', label: expect.stringContaining('soc key') },
      last_score: null,
      last_level: null,
      last_publication_version: null,
      last_spiking: false,
    });
    const subject = await s.post('/risk_api/watches/', { subject: { kind: 'email', key: 'Fraud@Example.COM' } }, a);
    expect(subject.status, JSON.stringify(subject.body)).toBe(201);
    expect(subject.body.watch).toMatchObject({
      target_kind: 'subject',
      target: 'email:Fraud@example.com',
      score_threshold: null,
    });
    const asn = (await s.post('/risk_api/watches/', { target: 'as64500' }, a)).body.watch;
    expect(asn).toMatchObject({ target_kind: 'asn', target: 'AS64500' });

    const page1 = await s.post('/risk_api/watches/list/', { limit: 2 }, a);
    expect(page1.body.watches.map((x: { id: number }) => x.id)).toEqual([w.id, subject.body.watch.id]);
    const page2 = await s.post('/risk_api/watches/list/', { limit: 2, cursor: page1.body.next_cursor }, a);
    expect(page2.body).toMatchObject({ watches: [{ id: asn.id }], next_cursor: null });

    const updated = await s.post(
      '/risk_api/watches/update/',
      { id: w.id, score_threshold: null, note: 'vpn exit, ticket 9' },
      a,
    );
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.watch).toMatchObject({
      id: w.id,
      score_threshold: null,
      note: 'vpn exit, ticket 9',
      target: '2001:db8::1',
    });
    const deleted = await s.post('/risk_api/watches/delete/', { id: asn.id }, a);
    expect(deleted.status).toBe(200);
    expect(deleted.body.watch.id).toBe(asn.id);
    expect((await s.post('/risk_api/watches/delete/', { id: asn.id }, a)).body.error).toBe('not_found');
  });

  it('refuses bad input with coded errors naming the field, changing nothing', async () => {
    const before = await count();
    const cases: Array<[object, string]> = [
      [{}, 'target'],
      [{ target: 'NL' }, 'target'],
      [{ target: '10.0.0.1/8' }, 'target'],
      [{ target: '203.0.113.0/4' }, 'target'],
      [{ target: '203.0.113.7', subject: { kind: 'domain', key: 'a.example' } }, 'subject'],
      [{ subject: { kind: 'ipaddress', key: '203.0.113.7' } }, 'subject.kind'],
      [{ subject: { kind: 'planet', key: 'mars' } }, 'subject.kind'],
      [{ subject: { kind: 'email', key: 'not an address' } }, 'subject.key'],
      [{ subject: { kind: 'domain', key: 'a.example' }, score_threshold: 50 }, 'score_threshold'],
      [{ target: '203.0.113.7', score_threshold: 0 }, 'score_threshold'],
      [{ target: '203.0.113.7', score_threshold: 101 }, 'score_threshold'],
      [{ target: '203.0.113.7', note: 'x'.repeat(WATCH_LIMITS.note + 1) }, 'note'],
      [{ target: '203.0.113.7', extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const r = await s.post('/risk_api/watches/', body, a);
      expect(r.status, JSON.stringify([body, r.body])).toBe(400);
      expect(r.body.error).toBe('invalid_request');
      expect(
        r.body.details.map((d: { field: string }) => d.field),
        JSON.stringify(r.body),
      ).toContain(field);
    }
    expect((await s.post('/risk_api/watches/update/', { id: 1 }, a)).body.error).toBe('invalid_request');
    expect(await count()).toBe(before);
  });

  it('one watch per target (409 watch_exists), and at most WATCH_LIMITS.perWorkspace (409 watch_limit_reached)', async () => {
    expect((await s.post('/risk_api/watches/', { target: '198.51.100.0/24' }, a)).status).toBe(201);
    const again = await s.post('/risk_api/watches/', { target: '198.51.100.0/24', note: 'twice' }, a);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'watch_exists', details: [{ field: 'target' }] });
    // Fill the workspace to its bound directly (the API would take 10,000 calls), then ask for one more.
    const have = await count();
    await s.app.db.prisma.watch.createMany({
      data: Array.from({ length: WATCH_LIMITS.perWorkspace - have }, (_, i) => ({
        workspaceId: wsA,
        targetKind: 'subject',
        target: `domain:filler-${i}.example`,
        authorKind: 'api_key',
        authorId: 1,
        authorLabel: 'test',
      })),
    });
    const over = await s.post('/risk_api/watches/', { target: '203.0.113.99' }, a);
    expect(over.status).toBe(409);
    expect(over.body.error).toBe('watch_limit_reached');
    expect(await count()).toBe(WATCH_LIMITS.perWorkspace);
    // Another workspace is not affected by A's bound.
    expect((await s.post('/risk_api/watches/', { target: '203.0.113.99' }, b)).status).toBe(201);
    await s.app.db.prisma.watch.deleteMany({ where: { workspaceId: wsA, target: { startsWith: 'domain:filler-' } } });
  });

  it("another workspace's watch is not found on every surface, and never listed", async () => {
    const mine = (await s.post('/risk_api/watches/', { target: '192.0.2.0/24', note: 'a only' }, a)).body.watch;
    for (const [path, body] of [
      ['/risk_api/watches/update/', { id: mine.id, note: 'hijack' }],
      ['/risk_api/watches/delete/', { id: mine.id }],
    ] as const) {
      const r = await s.post(path, body, b);
      expect(r.status).toBe(404);
      expect(r.body.error).toBe('not_found');
    }
    const listed = await s.post('/risk_api/watches/list/', { limit: 100 }, b);
    expect(listed.body.watches.map((w: { id: number }) => w.id)).not.toContain(mine.id);
    const gqlB = new GraphQLClient(`${s.url}/graphql`, { headers: b });
    await expect(gqlB.request(gql`mutation { deleteWatch(id: ${mine.id}) { id } }`)).rejects.toThrow(/No watch/);
    expect(await s.app.db.prisma.watch.findUniqueOrThrow({ where: { id: mine.id } })).toMatchObject({ note: 'a only' });
  });

  it('GraphQL for API keys: createWatch, watches, updateWatch, deleteWatch', async () => {
    const made = await gqlA.request<any>(
      gql`mutation($input: CreateWatchInput!) { createWatch(input: $input) { ${WATCH} } }`,
      { input: { subject: { kind: 'domain', key: 'Shop.Example.' }, note: 'phishing kit' } },
    );
    expect(made.createWatch).toMatchObject({
      targetKind: 'subject',
      target: 'domain:shop.example',
      scoreThreshold: null,
      note: 'phishing kit',
      author: { kind: 'api_key' },
      lastSpiking: false,
    });
    const id = made.createWatch.id;
    const updated = await gqlA.request<any>(
      gql`mutation { updateWatch(input: { id: ${id}, note: "phishing kit v2" }) { id note } }`,
    );
    expect(updated.updateWatch).toEqual({ id, note: 'phishing kit v2' });
    await expect(
      gqlA.request(gql`mutation { updateWatch(input: { id: ${id}, scoreThreshold: 40 }) { id } }`),
    ).rejects.toThrow(/subject watch/);
    const list = await gqlA.request<any>(gql`{ watches(first: 100) { nodes { id target } nextCursor } }`);
    expect(list.watches.nodes).toContainEqual({ id, target: 'domain:shop.example' });
    const deleted = await gqlA.request<any>(gql`mutation { deleteWatch(id: ${id}) { id target } }`);
    expect(deleted.deleteWatch).toEqual({ id, target: 'domain:shop.example' });
    await expect(gqlA.request(gql`mutation { createWatch(input: { target: "NL" }) { id } }`)).rejects.toThrow(
      /countries cannot be watched/,
    );
  });
});
