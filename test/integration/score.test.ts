import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphQLClient, gql } from 'graphql-request';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { TierCatalog } from '../../src/domain/metering/tiers.ts';
import { ScoreMeter } from '../../src/domain/metering/meter.ts';
import { CommunitySignals } from '../../src/domain/community/signal.ts';
import { CounterUnavailableError, type CounterStore } from '../../src/platform/counters/types.ts';

const DIMENSIONS = ['ip', 'subnet', 'isp', 'asn', 'org', 'city', 'region', 'country'];

describe(`POST /risk_api/score/ and GraphQL score (${backendName})`, () => {
  let s: TestServer;
  let now = Date.parse('2026-11-23T23:59:58.000Z');
  beforeAll(async () => {
    s = await startTestServer({ TRUSTED_PROXIES: '127.0.0.1' });
    // Small tiers for the limits under test (tiers are data), and a clock the tests move.
    await s.app.db.prisma.tier.createMany({
      data: [
        {
          code: 'tiny',
          name: 'Tiny',
          scoreEligible: true,
          dailyLimit: 3,
          burstPerSecond: 100,
          directReportLimit: 5,
          priceCents: 0,
          position: 90,
        },
        {
          code: 'bursty',
          name: 'Bursty',
          scoreEligible: true,
          dailyLimit: 1000,
          burstPerSecond: 2,
          directReportLimit: 5,
          priceCents: 0,
          position: 91,
        },
      ],
    });
    s.app.services.tiers = await TierCatalog.load(s.app.db.prisma);
    s.app.services.meter = new ScoreMeter(s.app.counters, () => now);
  });
  afterAll(() => s?.close());

  const score = (key: string, ip: string, headers: Record<string, string> = {}) =>
    s.post('/risk_api/score/', { ip }, { 'x-api-key': key, ...headers });

  it('answers the spec shape field by field, counted once', async () => {
    const { secret, prefix } = await s.createKey('score-shape', { tier: 'developer', name: 'checkout' });
    await s.post('/risk_api/rate/', { ip: '9.9.9.9', rating: -1, note: 'mule' }, { 'x-api-key': secret });
    const r = await score(secret, '9.9.9.9');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const b = r.body;
    expect(Object.keys(b).sort()).toEqual([
      'api_key',
      'community_signal',
      'endpoint',
      'links',
      'ok',
      'override',
      'publication',
      'query',
      'quota',
      'score',
      'workspace_memory',
    ]);
    expect(b.override).toBeNull(); // no rule of the workspace covers the IP (test/integration/overrides.test.ts has rules)
    expect(b).toMatchObject({
      ok: true,
      endpoint: 'score',
      query: { ip: '9.9.9.9' },
      api_key: { name: 'checkout', prefix },
    });
    expect(b.quota).toEqual({ daily_limit: 1000, used_today: 1, remaining: 999, over_limit: false });
    expect(b.score).toMatchObject({
      overall_score: expect.any(Number),
      overall_risk_level: expect.any(String),
      matched_count: expect.any(Number),
    });
    expect(b.score.dimensions.map((d: { code: string }) => d.code)).toEqual(DIMENSIONS);
    for (const d of b.score.dimensions) {
      expect(typeof d.matched).toBe('boolean');
      expect(Number.isInteger(d.score)).toBe(true);
    }
    expect(b.community_signal).toMatchObject({
      ok: true,
      state: { label: 'quiet', has_spike: false },
      metrics: { lookups_10m: 0, requesters_60m: 0, spike_windows_7d: 0 },
    });
    expect(b.community_signal.recent_query_windows).toHaveLength(6);
    expect(b.community_signal.recent_query_windows[0]).toEqual({
      label: expect.stringMatching(/^\d\d:\d\d$/),
      hits: 0,
      requesters: 0,
    });
    expect(b.links.ip).toBe(`${s.app.services.baseUrl}/workspace/reports/ip/9.9.9.9`);
    expect(b.workspace_memory).toMatchObject({
      ratings: { good: 0, neutral: 0, bad: 1 },
      last_rating: { rating: -1, note: 'mule' },
      reports: 0,
    });
    await s.post('/risk_api/rate/', { ip: '9.9.9.9', rating: 1 }, { 'x-api-key': secret });
    const after = await score(secret, '9.9.9.9');
    expect(after.body.workspace_memory).toMatchObject({
      ratings: { good: 1, neutral: 0, bad: 1 },
      last_rating: { rating: 1 },
    });
    expect(r.headers.get('ratelimit-limit')).toBe('1000');
    expect(r.headers.get('ratelimit-remaining')).toBe('999');
    expect(Number(r.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
  });

  it("counts the workspace's reports about the IP once each: as their subject, or related to them in any number of roles", async () => {
    const { secret } = await s.createKey('score-memory-reports', { tier: 'developer' });
    const ip = '9.9.9.10';
    const report = (body: object) =>
      s.post(
        '/risk_api/report/',
        { title: 'Card testing', summary: 'seen at checkout', outcome_code: 'fraud_watch', ...body },
        { 'x-api-key': secret },
      );
    const written = [
      await report({ kind: 'ipaddress', key: ip }),
      await report({
        kind: 'domain',
        key: 'mule-shop.example',
        related_subjects: [{ kind: 'ipaddress', key: ip, role: 'source_ip' }],
      }),
      await report({
        kind: 'domain',
        key: 'refunds.example',
        related_subjects: [
          { kind: 'ipaddress', key: ip, role: 'source_ip' },
          { kind: 'ipaddress', key: ip, role: 'hosting' },
        ],
      }),
      await report({
        kind: 'domain',
        key: 'unrelated.example',
        related_subjects: [{ kind: 'ipaddress', key: '9.9.9.11', role: 'source_ip' }],
      }),
    ];
    expect(
      written.map((w) => w.status),
      JSON.stringify(written.map((w) => w.body)),
    ).toEqual([201, 201, 201, 201]);
    const r = await score(secret, ip);
    expect(r.body.workspace_memory, JSON.stringify(r.body)).toMatchObject({ reports: 3 });
  });

  it('counts GraphQL score against the same quota with the same numbers', async () => {
    const { secret } = await s.createKey('score-gql', { tier: 'developer' });
    await score(secret, '1.1.1.1');
    const client = new GraphQLClient(`${s.url}/graphql`, { headers: { 'x-api-key': secret } });
    const data = await client.request<any>(
      gql`{ score(ip: "1.1.1.1") { quota { usedToday remaining } score { overallScore dimensions { code } } } }`,
    );
    expect(data.score.quota).toEqual({ usedToday: 2, remaining: 998 });
    const rest = await score(secret, '1.1.1.1');
    expect(rest.body.quota.used_today).toBe(3);
    expect(rest.body.score.overall_score).toBe(data.score.score.overallScore);
  });

  it('answers and counts a call whose community signal cannot be read, with community_signal.ok false', async () => {
    const { secret } = await s.createKey('score-community-down', { tier: 'developer' });
    const working = s.app.services.community;
    // The counters answer the metering step but fail the community read (a partial failure the two share a round trip for).
    const readFails = {
      readActivity: () => Promise.reject(new CounterUnavailableError('redis counter store unavailable: test')),
      recordLookupBatch: (tallies: never, nowMs: number) => s.app.counters.recordLookupBatch(tallies, nowMs),
    } as unknown as CounterStore;
    s.app.services.community = new CommunitySignals(readFails);
    try {
      const r = await score(secret, '1.0.0.9');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.community_signal).toEqual({
        ok: false,
        state: { label: 'unavailable', has_spike: false },
        metrics: { lookups_10m: 0, requesters_60m: 0, spike_windows_7d: 0 },
        recent_query_windows: [],
        networks: {
          subnet: {
            key: expect.any(String),
            ok: false,
            state: { label: 'unavailable', has_spike: false },
            metrics: { lookups_10m: 0, requesters_60m: 0, spike_windows_7d: 0 },
          },
          asn: r.body.community_signal.networks.asn && {
            key: expect.stringMatching(/^AS\d+$/),
            ok: false,
            state: { label: 'unavailable', has_spike: false },
            metrics: { lookups_10m: 0, requesters_60m: 0, spike_windows_7d: 0 },
          },
        },
      });
      expect(r.body.quota.used_today).toBe(1);
      const client = new GraphQLClient(`${s.url}/graphql`, { headers: { 'x-api-key': secret } });
      const data = await client.request<any>(
        gql`{ score(ip: "1.0.0.9") { quota { usedToday } communitySignal { ok label hasSpike lookups10m recentQueryWindows { label } } } }`,
      );
      expect(data.score).toEqual({
        quota: { usedToday: 2 },
        communitySignal: { ok: false, label: 'unavailable', hasSpike: false, lookups10m: 0, recentQueryWindows: [] },
      });
    } finally {
      s.app.services.community = working;
    }
  });

  it('refuses an ineligible tier with 403 and counts nothing', async () => {
    const { secret } = await s.createKey('score-free', { tier: 'free' });
    const r = await score(secret, '8.8.8.8');
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('tier_not_eligible');
    expect(r.body.message).toMatch(/tier/i);
    expect((await s.post('/risk_api/rate/', { ip: '8.8.8.8', rating: 0 }, { 'x-api-key': secret })).status).toBe(201);
  });

  it('does not count a bad request', async () => {
    const { secret } = await s.createKey('score-bad', { tier: 'developer' });
    expect((await score(secret, 'nope')).status).toBe(400);
    expect((await s.post('/risk_api/score/', { ip: '8.8.8.8', extra: 1 }, { 'x-api-key': secret })).status).toBe(400);
    expect((await score(secret, '8.8.8.8')).body.quota.used_today).toBe(1);
  });

  it('hard-blocks an exhausted day with 429, the quota object and Retry-After, then resets at 00:00 UTC', async () => {
    now = Date.parse('2026-11-23T23:59:58.000Z');
    const { secret } = await s.createKey('score-tiny', { tier: 'tiny' });
    const used = [];
    for (let i = 0; i < 3; i++) used.push((await score(secret, '8.8.4.4')).body.quota);
    expect(used.map((q) => [q.used_today, q.remaining, q.over_limit])).toEqual([
      [1, 2, false],
      [2, 1, false],
      [3, 0, true],
    ]);
    const blocked = await score(secret, '8.8.4.4');
    expect(blocked.status).toBe(429);
    expect(blocked.body).toMatchObject({
      ok: false,
      error: 'quota_exceeded',
      quota: { daily_limit: 3, used_today: 3, remaining: 0, over_limit: true },
    });
    expect(blocked.headers.get('retry-after')).toBe('2');
    expect(blocked.headers.get('ratelimit-remaining')).toBe('0');
    const again = await score(secret, '8.8.4.4');
    expect([again.status, again.body.quota.used_today]).toEqual([429, 3]); // still blocked, never counted
    now = Date.parse('2026-11-24T00:00:00.500Z');
    const fresh = await score(secret, '8.8.4.4');
    expect(fresh.status).toBe(200);
    expect(fresh.body.quota).toEqual({ daily_limit: 3, used_today: 1, remaining: 2, over_limit: false });
  });

  it('limits bursts per key per second with its own 429 code and the daily headers', async () => {
    now = Date.parse('2026-11-24T06:00:00.100Z');
    const { secret } = await s.createKey('score-burst', { tier: 'bursty' });
    const results = await Promise.all(Array.from({ length: 5 }, () => score(secret, '8.8.8.8')));
    const codes = results.map((r) => r.status).sort();
    expect(codes).toEqual([200, 200, 429, 429, 429]);
    const limited = results.find((r) => r.status === 429)!;
    expect(limited.body.error).toBe('rate_limited');
    expect(limited.headers.get('ratelimit-limit')).toBe('1000');
    expect(limited.headers.get('retry-after')).toBe('1');
    now += 1000;
    expect((await score(secret, '8.8.8.8')).body.quota.used_today).toBe(3);
  });

  it('feeds the community signal from trusted-proxy requester addresses, visible after the window completes', async () => {
    now = Date.parse('2026-11-24T08:00:30.000Z');
    const { secret } = await s.createKey('score-community', { tier: 'developer' });
    for (const requester of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
      expect((await score(secret, '4.4.4.4', { 'x-forwarded-for': `${requester}, 127.0.0.1` })).status).toBe(200);
    }
    // The clock jumps ten minutes at once: send the tallied lookups, as the 100 ms flush would have by then.
    await s.app.services.community.flush();
    now = Date.parse('2026-11-24T08:10:30.000Z');
    const after = await score(secret, '4.4.4.4');
    expect(after.body.community_signal).toMatchObject({
      state: { label: 'converging', has_spike: false },
      metrics: { lookups_10m: 3, requesters_60m: 3 },
    });
    expect(after.body.community_signal.recent_query_windows.at(-1)).toEqual({ label: '08:00', hits: 3, requesters: 3 });
  });

  it("shows lookups spreading over the IP's subnet and AS in community_signal.networks before the IP itself is looked up", async () => {
    now = Date.parse('2026-11-24T11:00:30.000Z'); // more than an hour after the test above, which looked up 4.4.4.4
    const { secret } = await s.createKey('score-networks', { tier: 'developer' });
    // Three requesters each look up another IP of the same /24 (and AS).
    for (const [i, requester] of ['198.51.100.11', '198.51.100.12', '198.51.100.13'].entries()) {
      expect((await score(secret, `4.4.4.${10 + i}`, { 'x-forwarded-for': `${requester}, 127.0.0.1` })).status).toBe(
        200,
      );
    }
    await s.app.services.community.flush();
    now = Date.parse('2026-11-24T11:10:30.000Z');
    const after = await score(secret, '4.4.4.99');
    const c = after.body.community_signal;
    const subnetKey = after.body.score.dimensions.find((d: { code: string }) => d.code === 'subnet').entity.key;
    const asnKey = after.body.score.dimensions.find((d: { code: string }) => d.code === 'asn').entity.key;
    expect(c.state.label).toBe('quiet'); // the IP itself was never looked up
    const converging = {
      ok: true,
      state: { label: 'converging', has_spike: false },
      metrics: { lookups_10m: 3, requesters_60m: 3, spike_windows_7d: 0 },
    };
    expect(c.networks).toEqual({ subnet: { key: subnetKey, ...converging }, asn: { key: asnKey, ...converging } });
    const client = new GraphQLClient(`${s.url}/graphql`, { headers: { 'x-api-key': secret } });
    const data = await client.request<any>(
      gql`{ score(ip: "4.4.4.98") { communitySignal { networks { subnet { key label lookups10m requesters60m } asn { key hasSpike } } } } }`,
    );
    expect(data.score.communitySignal.networks).toEqual({
      subnet: { key: subnetKey, label: 'converging', lookups10m: 3, requesters60m: 3 },
      asn: { key: asnKey, hasSpike: false },
    });
  });
});
