import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphQLClient, gql } from 'graphql-request';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { call, mcpClient } from '../helpers/mcp.ts';
import { TierCatalog } from '../../src/domain/metering/tiers.ts';
import { ScoreMeter } from '../../src/domain/metering/meter.ts';
import { keyQuotaKey, quotaKey, utcDay } from '../../src/platform/counters/keys.ts';

/**
 * POST /risk_api/score/batch/, GraphQL scoreBatch and the MCP tool score_ips: order and duplicates, per-item
 * errors never counted, the all-or-nothing reservation (a 429 leaves every counter as it was), the burst limit
 * counted per IP and the batch bound it sets, the shared quotas, lookups recorded per IP, workspace isolation.
 */
describe(`batch scoring (${backendName})`, () => {
  let s: TestServer;
  let now = Date.parse('2026-11-24T06:00:00.100Z');
  beforeAll(async () => {
    s = await startTestServer({ TRUSTED_PROXIES: '127.0.0.1' });
    await s.app.db.prisma.tier.createMany({
      data: [
        {
          code: 'b-tiny',
          name: 'Batch tiny',
          scoreEligible: true,
          dailyLimit: 5,
          burstPerSecond: 3,
          directReportLimit: 5,
          agentDailyLimit: 4,
          priceCents: 0,
          position: 90,
        },
        {
          code: 'b-bursty',
          name: 'Batch bursty',
          scoreEligible: true,
          dailyLimit: 1000,
          burstPerSecond: 3,
          directReportLimit: 5,
          agentDailyLimit: 1000,
          priceCents: 0,
          position: 91,
        },
      ],
    });
    s.app.services.tiers = await TierCatalog.load(s.app.db.prisma);
    s.app.services.meter = new ScoreMeter(s.app.counters, () => now);
  });
  afterAll(() => s?.close());

  const batch = (key: string, ips: unknown, headers: Record<string, string> = {}) =>
    s.post('/risk_api/score/batch/', { ips }, { 'x-api-key': key, ...headers });
  const score = (key: string, ip: string) => s.post('/risk_api/score/', { ip }, { 'x-api-key': key });
  /** The workspace's quota and the key's own count of the day, straight from the store. (Burst windows are not
   *  readable in both stores: the tests show them untouched by what a batch of the same second is then allowed.) */
  async function counters(prefix: string, surface: 'api_score' | 'agent_score' = 'api_score') {
    const key = await s.app.db.prisma.apiKey.findFirstOrThrow({ where: { prefix } });
    const day = utcDay(now);
    return s.app.counters.peekMany([
      quotaKey(String(key.workspaceId), surface, day),
      keyQuotaKey(String(key.workspaceId), surface, day, prefix),
    ]);
  }

  it('answers one result per requested IP in request order, scoring and counting each distinct address once', async () => {
    now = Date.parse('2026-11-24T06:00:00.100Z');
    const { secret, prefix } = await s.createKey('batch-order', { tier: 'business', name: 'pipeline' });
    const ips = ['9.9.9.9', 'not-an-ip', '::ffff:9.9.9.9', '2001:DB8::1', ' 9.9.9.9 ', '010.1.1.1', '2001:db8::1'];
    const r = await batch(secret, ips);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['api_key', 'endpoint', 'ok', 'quota', 'results']);
    expect(r.body).toMatchObject({ ok: true, endpoint: 'score_batch', api_key: { name: 'pipeline', prefix } });
    // two distinct valid addresses: 9.9.9.9 (three spellings) and 2001:db8::1 (two)
    expect(r.body.quota).toEqual({ daily_limit: 250_000, used_today: 2, remaining: 249_998, over_limit: false });
    expect(r.headers.get('ratelimit-remaining')).toBe('249998');
    const results = r.body.results;
    expect(results).toHaveLength(ips.length);
    expect(results.map((x: any) => (x.ok ? x.query.ip : `error:${x.ip}`))).toEqual([
      '9.9.9.9',
      'error:not-an-ip',
      '9.9.9.9',
      '2001:db8::1',
      '9.9.9.9',
      'error:010.1.1.1',
      '2001:db8::1',
    ]);
    expect(results[1]).toEqual({
      ip: 'not-an-ip',
      ok: false,
      error: 'invalid_ip',
      message: 'The item is not a valid IPv4 or IPv6 address; it was not counted.',
    });
    expect(results[0]).toEqual(results[2]);
    // each scored item is the single score's answer less its key and quota
    const single = await score(secret, '9.9.9.9');
    const { ok: _ok, endpoint: _e, api_key: _k, quota: _q, ...item } = single.body;
    expect(Object.keys(results[0]).sort()).toEqual(['ok', ...Object.keys(item)].sort());
    expect({ ...results[0], community_signal: null }).toEqual({ ok: true, ...item, community_signal: null });
    expect(await counters(prefix)).toEqual([3, 3]);
  });

  it('answers a batch of invalid items only with their errors, counting nothing', async () => {
    now = Date.parse('2026-11-24T06:00:05.100Z');
    const { secret, prefix } = await s.createKey('batch-invalid', { tier: 'developer' });
    const r = await batch(secret, ['', 'fe80::1%eth0', '1.2.3']);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.results.map((x: any) => [x.ok, x.error])).toEqual([
      [false, 'invalid_ip'],
      [false, 'invalid_ip'],
      [false, 'invalid_ip'],
    ]);
    expect(r.body.results[1].message).toContain('zone id');
    expect(r.body.quota).toEqual({ daily_limit: 1000, used_today: 0, remaining: 1000, over_limit: false });
    expect(await counters(prefix)).toEqual([0, 0]);
  });

  it('refuses a malformed body whole with 400 and counts nothing', async () => {
    now = Date.parse('2026-11-24T06:00:06.100Z');
    const { secret, prefix } = await s.createKey('batch-bad-body', { tier: 'business' });
    const refused = [
      [[], 'must hold 1 to 100 IPs'],
      [Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`), 'must hold 1 to 100 IPs'],
      [['1.1.1.1', 7], 'must be a string'],
      ['1.1.1.1', 'must be an array of strings'],
      [null, 'must be an array of strings'],
    ] as const;
    for (const [ips, message] of refused) {
      const r = await batch(secret, ips);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error).toBe('invalid_request');
      expect(r.body.details.map((d: any) => d.message)).toContain(message);
    }
    const extra = await s.post('/risk_api/score/batch/', { ips: ['1.1.1.1'], ip: '1.1.1.1' }, { 'x-api-key': secret });
    expect([extra.status, extra.body.details]).toEqual([400, [{ field: 'ip', message: 'is not a known field' }]]);
    expect(await counters(prefix)).toEqual([0, 0]);
  });

  it('reserves the quota all or nothing: a batch larger than what is left is refused with 429 and leaves every counter as it was', async () => {
    now = Date.parse('2026-11-24T23:59:58.000Z');
    const { secret, prefix } = await s.createKey('batch-quota', { tier: 'b-tiny' }); // 5 a day, 3 per second
    expect((await batch(secret, ['8.8.8.1', '8.8.8.2', '8.8.8.3'])).body.quota.used_today).toBe(3);
    now += 1000;
    const blocked = await batch(secret, ['8.8.8.4', '8.8.8.5', '8.8.8.6', 'nope']);
    expect(blocked.status, JSON.stringify(blocked.body)).toBe(429);
    expect(blocked.body).toMatchObject({
      ok: false,
      error: 'quota_exceeded',
      quota: { daily_limit: 5, used_today: 3, remaining: 2, over_limit: false, resets_at: '2026-11-25T00:00:00.000Z' },
    });
    expect(blocked.body.message).toContain('3 IPs');
    expect(blocked.headers.get('retry-after')).toBe('1');
    expect(blocked.headers.get('ratelimit-remaining')).toBe('2');
    expect(await counters(prefix)).toEqual([3, 3]);
    // The refusal left this second's burst window empty too (3 more would not fit it otherwise), and what is left of
    // the day still fits a batch of two (a duplicate counted once); then the day is used up.
    const rest = await batch(secret, ['8.8.8.4', '8.8.8.5', '8.8.8.4']);
    expect([rest.status, rest.body.quota]).toEqual([
      200,
      { daily_limit: 5, used_today: 5, remaining: 0, over_limit: true },
    ]);
    expect((await batch(secret, ['8.8.8.7'])).body.error).toBe('quota_exceeded');
    // a batch of invalid items only is still answered: it costs nothing
    expect((await batch(secret, ['nope'])).status).toBe(200);
    expect(await counters(prefix)).toEqual([5, 5]);
    now = Date.parse('2026-11-25T00:00:00.500Z');
    expect((await batch(secret, ['8.8.8.7'])).body.quota.used_today).toBe(1);
  });

  it('counts the burst limit per IP: a batch that does not fit this second is refused whole, and one larger than the limit never fits', async () => {
    now = Date.parse('2026-11-24T07:00:00.100Z');
    const { secret, prefix } = await s.createKey('batch-burst', { tier: 'b-bursty' });
    const tooBig = await batch(secret, ['7.7.7.1', '7.7.7.2', '7.7.7.3', '7.7.7.4']);
    expect(tooBig.status).toBe(400);
    expect(tooBig.body).toMatchObject({
      error: 'invalid_request',
      details: [{ field: 'ips', message: expect.stringContaining('at most 3 distinct valid IPs') }],
    });
    expect(tooBig.body.message).toContain('3 per second');
    // four items, three distinct: fits exactly
    expect((await batch(secret, ['7.7.7.1', '7.7.7.2', '7.7.7.3', '7.7.7.1'])).body.quota.used_today).toBe(3);
    const limited = await batch(secret, ['7.7.7.9']);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('rate_limited');
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(await counters(prefix)).toEqual([3, 3]);
    // the single score shares the key's burst window
    expect((await score(secret, '7.7.7.9')).body.error).toBe('rate_limited');
    now += 1000;
    expect((await batch(secret, ['7.7.7.4', '7.7.7.5'])).status).toBe(200);
    expect((await batch(secret, ['7.7.7.6', '7.7.7.7'])).body.error).toBe('rate_limited'); // 2 + 2 > 3
    expect((await score(secret, '7.7.7.6')).body.quota.used_today).toBe(6);
  });

  it('records one lookup per distinct IP for the community signal, as single calls do', async () => {
    now = Date.parse('2026-11-24T08:00:30.000Z');
    const { secret } = await s.createKey('batch-community', { tier: 'business' });
    for (const requester of ['198.51.100.21', '198.51.100.22']) {
      const r = await batch(secret, ['4.4.8.1', '4.4.8.2', '4.4.8.1'], {
        'x-forwarded-for': `${requester}, 127.0.0.1`,
      });
      expect(r.status).toBe(200);
    }
    await s.app.services.community.flush();
    now = Date.parse('2026-11-24T08:10:30.000Z');
    const after = await batch(secret, ['4.4.8.1', '4.4.8.3']);
    const [seen, fresh] = after.body.results;
    expect(seen.community_signal.metrics).toMatchObject({ lookups_10m: 2, requesters_60m: 2 });
    expect(fresh.community_signal.metrics.lookups_10m).toBe(0);
    // the /24 saw both IPs of both batches: four lookups
    expect(fresh.community_signal.networks.subnet.metrics).toMatchObject({ lookups_10m: 4, requesters_60m: 2 });
  });

  it('answers each workspace its own memory of the IPs', async () => {
    now = Date.parse('2026-11-24T09:00:00.100Z');
    const a = await s.createKey('batch-memory-a', { tier: 'business' });
    const b = await s.createKey('batch-memory-b', { tier: 'business' });
    expect(
      (await s.post('/risk_api/rate/', { ip: '192.0.2.88', rating: -1, note: 'mule' }, { 'x-api-key': a.secret }))
        .status,
    ).toBe(201);
    const mine = await batch(a.secret, ['192.0.2.88', '192.0.2.89']);
    const theirs = await batch(b.secret, ['192.0.2.88', '192.0.2.89']);
    expect(mine.body.results[0].workspace_memory).toMatchObject({
      ratings: { good: 0, neutral: 0, bad: 1 },
      last_rating: { rating: -1, note: 'mule' },
    });
    const nothing = { ratings: { good: 0, neutral: 0, bad: 0 }, last_rating: null, reports: 0 };
    expect(mine.body.results[1].workspace_memory).toEqual(nothing);
    expect(theirs.body.results.map((x: any) => x.workspace_memory)).toEqual([nothing, nothing]);
  });

  it('refuses an ineligible tier with 403, counting nothing', async () => {
    const { secret } = await s.createKey('batch-free', { tier: 'free' });
    const r = await batch(secret, ['1.1.1.1']);
    expect([r.status, r.body.error]).toEqual([403, 'tier_not_eligible']);
  });

  it('GraphQL scoreBatch answers the same items on the same quota', async () => {
    now = Date.parse('2026-11-24T10:00:00.100Z');
    const { secret, prefix } = await s.createKey('batch-gql', { tier: 'business' });
    const client = new GraphQLClient(`${s.url}/graphql`, { headers: { 'x-api-key': secret } });
    const data = await client.request<any>(gql`{ scoreBatch(ips: ["5.5.5.5", "x", "5.5.5.5", "5.5.5.6"]) {
      apiKey { prefix } quota { usedToday remaining }
      results { input error { code message } score { ip quota { usedToday } score { overallScore dimensions { code } } memory { badRatings } } } } }`);
    const b = data.scoreBatch;
    expect(b.apiKey.prefix).toBe(prefix);
    expect(b.quota).toEqual({ usedToday: 2, remaining: 249_998 });
    expect(b.results.map((x: any) => [x.input, x.score?.ip ?? null, x.error?.code ?? null])).toEqual([
      ['5.5.5.5', '5.5.5.5', null],
      ['x', null, 'invalid_ip'],
      ['5.5.5.5', '5.5.5.5', null],
      ['5.5.5.6', '5.5.5.6', null],
    ]);
    expect(b.results[0].score.quota).toEqual({ usedToday: 2 });
    expect(b.results[0].score.score.dimensions).toHaveLength(8);
    const rest = await batch(secret, ['5.5.5.5']);
    expect(rest.body.quota.used_today).toBe(3);
    expect(rest.body.results[0].score.overall_score).toBe(b.results[0].score.score.overallScore);
    await expect(client.request(gql`{ scoreBatch(ips: []) { quota { usedToday } } }`)).rejects.toThrow(
      /must hold 1 to 100 IPs/,
    );
    const many = JSON.stringify(Array.from({ length: 101 }, (_, i) => `10.1.0.${i}`));
    await expect(client.request(`{ scoreBatch(ips: ${many}) { quota { usedToday } } }`)).rejects.toThrow(
      /must hold 1 to 100 IPs/,
    );
    expect(await counters(prefix)).toEqual([3, 3]);
  });

  it('MCP score_ips answers the batch on the agent quota, never the API quota, and refuses one that does not fit whole', async () => {
    now = Date.parse('2026-11-24T11:00:00.100Z');
    const { secret, prefix } = await s.createKey('batch-mcp', { tier: 'b-tiny' });
    const client = await mcpClient(s.url, secret);
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'score_ips')!;
    expect(tool.inputSchema.required).toEqual(['ips']);
    expect(tool.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    const { result, body } = await call(client, 'score_ips', { ips: ['6.6.6.6', 'nope', '6.6.6.7', '6.6.6.6'] });
    expect(result.isError).toBeFalsy();
    expect(body).toMatchObject({
      ok: true,
      endpoint: 'score_batch',
      quota: { daily_limit: 4, used_today: 2, remaining: 2, resets_at: '2026-11-25T00:00:00.000Z' },
    });
    expect(body.results.map((x: any) => (x.ok ? x.query.ip : x.error))).toEqual([
      '6.6.6.6',
      'invalid_ip',
      '6.6.6.7',
      '6.6.6.6',
    ]);
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(text).toContain('6.6.6.7: risk score');
    expect(text).toContain('"nope": invalid_ip, not counted');
    now += 1000; // a new burst window: what refuses the next batch is the agent quota
    const refused = await call(client, 'score_ips', { ips: ['6.6.6.1', '6.6.6.2', '6.6.6.3'] });
    expect(refused.result.isError).toBe(true);
    expect(refused.body).toMatchObject({ ok: false, error: 'quota_exceeded', quota: { used_today: 2, remaining: 2 } });
    expect(await counters(prefix, 'agent_score')).toEqual([2, 2]);
    expect(await counters(prefix, 'api_score')).toEqual([0, 0]);
    expect((await call(client, 'score_ips', { ips: [] })).body.details).toEqual([
      { field: 'ips', message: 'must hold 1 to 100 IPs' },
    ]);
    await client.close();
  });
});
