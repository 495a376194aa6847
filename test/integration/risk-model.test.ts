import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphQLClient, gql } from 'graphql-request';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { runCommand, type CommandContext } from '../../src/transport/admin/commands.ts';
import { parseFeedText } from '../../src/domain/feeds/parse.ts';

describe(`risk model: feeds, publication and the raw dimensions read (${backendName})`, () => {
  let s: TestServer;
  let a: Record<string, string>;
  let b: Record<string, string>;
  let ctx: CommandContext;
  beforeAll(async () => {
    s = await startTestServer();
    // The raw dimensions read needs a score-eligible tier (test/integration/dimensions-tier.test.ts).
    a = { 'x-api-key': (await s.createKey('model-a', { tier: 'developer' })).secret };
    b = { 'x-api-key': (await s.createKey('model-b', { tier: 'developer' })).secret };
    ctx = {
      db: s.app.db,
      dataDir: s.env.dataDir,
      feedFetch: { maxBytes: 1 << 20, timeoutMs: 10_000 },
      pepper: s.app.pepper,
      network: async () => s.app.services.network,
      publicationsKept: 3,
      publications: s.app.services.publications,
    };
  });
  afterAll(() => s?.close());

  const dims = async (ip: string, headers: Record<string, string>) => {
    const r = await s.post('/risk_api/dimensions/', { ip }, headers);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  };
  const dim = (body: any, code: string) => body.dimensions.find((d: { code: string }) => d.code === code);

  it('resolves a real IP into all eight dimensions before anything is published', async () => {
    const body = await dims('8.8.8.8', a);
    expect(body).toMatchObject({
      ok: true,
      endpoint: 'dimensions',
      query: { ip: '8.8.8.8' },
      quota: { counted: false },
      publication: { version: 0 },
    });
    expect(body.dimensions.map((d: { code: string }) => d.code)).toEqual([
      'ip',
      'subnet',
      'isp',
      'asn',
      'org',
      'city',
      'region',
      'country',
    ]);
    expect(dim(body, 'asn').entity).toMatchObject({ key: 'AS15169' });
    expect(dim(body, 'org').entity.name).toMatch(/Google/);
    expect(dim(body, 'country').entity).toMatchObject({ key: 'US' });
    expect(body.dimensions.every((d: { matched: boolean }) => !d.matched)).toBe(true);
  });

  it('answers special-purpose addresses as such, never as an error', async () => {
    const body = await dims('10.1.2.3', a);
    expect(body.ip.special).toMatchObject({ cidr: '10.0.0.0/8' });
    expect(dim(body, 'ip').entity).toMatchObject({ key: '10.1.2.3' });
    for (const code of ['subnet', 'asn', 'country'])
      expect(dim(body, code)).toMatchObject({ entity: null, matched: false, reason: expect.any(String) });
  });

  it('refuses an invalid IP naming ip', async () => {
    const r = await s.post('/risk_api/dimensions/', { ip: '1.2.3.04' }, a);
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([expect.objectContaining({ field: 'ip' })]);
  });

  it('publishes feed and community evidence globally and private evidence only to its workspace', async () => {
    const feed = parseFeedText('# test feed\n8.8.4.4\n203.0.113.0/24 ; doc range\nnot-an-ip\n', 'plain');
    // One bad line in three: over the broken-download limit, so the import says it accepts a partial list.
    const imported = await runCommand(
      'feeds import',
      { name: 'Test-Feed', format: 'plain', weight: 1, source: 'inline', parsed: feed, 'allow-partial': true },
      ctx,
    );
    expect(imported).toMatchObject({ name: 'test-feed', entries: 2, errors: 1 });
    expect(
      await s.post(
        '/risk_api/report/',
        {
          kind: 'ipaddress',
          key: '9.9.9.9',
          outcome_code: 'fraud_confirmed',
          severity: 'critical',
          visibility: 'community',
        },
        a,
      ),
    ).toMatchObject({ status: 201 });
    expect(
      await s.post(
        '/risk_api/report/',
        { kind: 'ipaddress', key: '4.2.2.2', outcome_code: 'fraud_confirmed', severity: 'critical' },
        a,
      ),
    ).toMatchObject({ status: 201 });
    expect(await s.post('/risk_api/rate/', { ip: '4.2.2.2', rating: -1 }, a)).toMatchObject({ status: 201 });

    const published = (await runCommand('publish', {}, ctx)) as { version: number };
    expect(published.version).toBe(1);

    const feedIp = await dims('8.8.4.4', b);
    expect(dim(feedIp, 'ip')).toMatchObject({ matched: true, published: { counts: { feed_listings: 1 } } });
    expect(dim(feedIp, 'ip').published.score).toBeGreaterThan(0);

    const community = await dims('9.9.9.9', b);
    expect(community.publication.version).toBe(1);
    expect(dim(community, 'ip').published).toMatchObject({ counts: { reports: 1 }, reporters: 1 });
    expect(dim(community, 'ip').published.score).toBeGreaterThan(dim(community, 'asn').published?.score ?? 0);
    expect(dim(community, 'ip').workspace).toBeNull(); // b wrote nothing

    const privateToA = await dims('4.2.2.2', a);
    expect(dim(privateToA, 'ip').published).toBeNull();
    expect(dim(privateToA, 'ip').workspace).toMatchObject({ counts: { reports: 1, bad_ratings: 1 } });
    const seenByB = await dims('4.2.2.2', b);
    expect(dim(seenByB, 'ip')).toMatchObject({ matched: false, published: null, workspace: null });
  });

  it('serves the same numbers through GraphQL', async () => {
    const client = new GraphQLClient(`${s.url}/graphql`, { headers: b });
    const data = await client.request<any>(gql`{
      ip(address: "9.9.9.9") { address publication { version } dimensions { code matched published { score reports } } }
      dimensionEntity(code: ip, key: "9.9.9.9") { published { score } workspace { score } }
    }`);
    const rest = await dims('9.9.9.9', b);
    expect(data.ip.dimensions.find((d: { code: string }) => d.code === 'ip').published.score).toBe(
      dim(rest, 'ip').published.score,
    );
    expect(data.dimensionEntity).toEqual({ published: { score: dim(rest, 'ip').published.score }, workspace: null });
  });

  it('replaces a feed on re-import and removes it', async () => {
    const again = await runCommand(
      'feeds import',
      {
        name: 'test-feed',
        format: 'plain',
        weight: 0.5,
        source: 'inline',
        parsed: parseFeedText('8.8.4.4\n', 'plain'),
      },
      ctx,
    );
    expect(again).toMatchObject({ entries: 1, replaced: true });
    expect(await runCommand('feeds list', {}, ctx)).toEqual([
      expect.objectContaining({ name: 'test-feed', entries: 1, weight: 0.5 }),
    ]);
    await runCommand('feeds remove', { name: 'test-feed' }, ctx);
    expect(await runCommand('feeds list', {}, ctx)).toEqual([]);
  });
});
