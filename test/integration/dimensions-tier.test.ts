import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { runCommand } from '../../src/transport/admin/commands.ts';
import { parseFeedText } from '../../src/domain/feeds/parse.ts';

/**
 * The published per-dimension scores are what `score` is computed from (within a point): every read of them
 * needs a score-eligible tier, as `score` does, on REST and on each GraphQL field that returns them. The read
 * stays unmetered.
 */
describe(`the raw dimensions read needs a score-eligible tier (${backendName})`, () => {
  let s: TestServer;
  let free: Record<string, string>;
  let developer: Record<string, string>;
  const IP = '8.8.4.4';
  beforeAll(async () => {
    s = await startTestServer();
    free = { 'x-api-key': (await s.createKey('dims-free', { tier: 'free' })).secret };
    developer = { 'x-api-key': (await s.createKey('dims-dev', { tier: 'developer' })).secret };
    const ctx = {
      db: s.app.db,
      dataDir: s.env.dataDir,
      feedFetch: { maxBytes: 1 << 20, timeoutMs: 10_000 },
      pepper: s.app.pepper,
      network: async () => s.app.services.network,
      publicationsKept: 3,
      publications: s.app.services.publications,
    };
    await runCommand(
      'feeds import',
      { name: 'tier-feed', format: 'plain', weight: 1, source: 'inline', parsed: parseFeedText(`${IP}\n`, 'plain') },
      ctx,
    );
    await runCommand('publish', {}, ctx);
    // A subject for the IP in the Free workspace, so Subject.ipDimensions has something to answer.
    expect((await s.post('/risk_api/rate/', { ip: IP, rating: -1 }, free)).status).toBe(201);
  });
  afterAll(() => s?.close());

  const gql = async (query: string, headers: Record<string, string>) => {
    const r = await s.post('/graphql', { query }, headers);
    expect(r.status).toBe(200);
    return r.body as {
      data: Record<string, unknown> | null;
      errors?: Array<{ message: string; path: string[]; extensions: { code: string } }>;
    };
  };

  it('refuses POST /risk_api/dimensions/ on a Free key with 403 tier_not_eligible', async () => {
    const r = await s.post('/risk_api/dimensions/', { ip: IP }, free);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({
      ok: false,
      error: 'tier_not_eligible',
      message: expect.stringMatching(/Free tier does not include .*dimension/),
    });
  });

  it.each([
    ['ip(address:)', `{ ip(address: "${IP}") { dimensions { code published { score } } } }`, ['ip']],
    [
      'Subject.ipDimensions',
      `{ subject(kind: ipaddress, key: "${IP}") { key ipDimensions { dimensions { published { score } } } } }`,
      ['subject', 'ipDimensions'],
    ],
    ['dimensionEntity', `{ dimensionEntity(code: ip, key: "${IP}") { published { score } } }`, ['dimensionEntity']],
  ])('refuses GraphQL %s on a Free key with tier_not_eligible', async (_name, query, path) => {
    const body = await gql(query, free);
    expect(body.errors).toEqual([
      expect.objectContaining({ path, extensions: expect.objectContaining({ code: 'tier_not_eligible' }) }),
    ]);
    expect(JSON.stringify(body.data ?? {})).not.toContain('"score"');
  });

  it('answers an eligible key on REST and GraphQL, without counting it', async () => {
    const r = await s.post('/risk_api/dimensions/', { ip: IP }, developer);
    expect(r.status).toBe(200);
    expect(r.body.quota).toEqual({ counted: false, reason: 'free_endpoint' });
    const published = r.body.dimensions.find((d: { code: string }) => d.code === 'ip').published;
    expect(published.score).toBeGreaterThan(0);
    const body = await gql(
      `{ ip(address: "${IP}") { dimensions { code published { score } } } dimensionEntity(code: ip, key: "${IP}") { published { score } } }`,
      developer,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data).toMatchObject({ dimensionEntity: { published: { score: published.score } } });
    const score = await s.post('/risk_api/score/', { ip: IP }, developer);
    expect(score.status).toBe(200);
    expect(score.body.quota.used_today).toBe(1); // only the score call was counted
  });
});
