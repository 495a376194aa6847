import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { mcpClient, call } from '../helpers/mcp.ts';
import { parsePrometheusText, promtoolProblems, sampleValue, type Family } from '../helpers/prometheus-text.ts';
import { TierCatalog } from '../../src/domain/metering/tiers.ts';
import { ScoreMeter } from '../../src/domain/metering/meter.ts';
import { publish } from '../../src/domain/publishing/index.ts';
import { importFeed } from '../../src/domain/feeds/store.ts';
import { parseFeedText } from '../../src/domain/feeds/parse.ts';
import { assertContract } from '../helpers/openapi-contract.ts';
import { buildInfo } from '../../src/platform/build-info.ts';

const HAS_PROMTOOL = spawnSync('promtool', ['--version']).error === undefined;
/**
 * GET /metrics as Prometheus scrapes it, read with a strict parser of the text format (and promtool when it is
 * installed), after traffic on every surface: score calls counted and refused by tier and surface, request
 * durations by route pattern (never a raw path), group-commit batch sizes, counter-store and database latency,
 * the publication, feeds and outbox gauges, and prom-client's process and event-loop metrics.
 */
describe(`GET /metrics (${backendName})`, () => {
  let s: TestServer;
  let families: Map<string, Family>;
  let text: string;
  const now = Date.parse('2026-11-24T12:00:00.000Z');
  const scrape = async (headers: Record<string, string> = {}) => {
    const res = await fetch(`${s.url}/metrics`, { headers });
    return { status: res.status, type: res.headers.get('content-type'), headers: res.headers, text: await res.text() };
  };

  beforeAll(async () => {
    s = await startTestServer();
    // Small tiers so a refusal of each kind comes quickly, and a clock that stays in one second (burst) and one day.
    await s.app.db.prisma.tier.createMany({
      data: [
        {
          code: 'tiny',
          name: 'Tiny',
          scoreEligible: true,
          dailyLimit: 2,
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
          burstPerSecond: 1,
          directReportLimit: 5,
          priceCents: 0,
          position: 91,
        },
      ],
    });
    s.app.services.tiers = await TierCatalog.load(s.app.db.prisma);
    s.app.services.meter = new ScoreMeter(s.app.counters, () => now);

    const tiny = (await s.createKey('metrics-tiny', { tier: 'tiny' })).secret;
    const bursty = (await s.createKey('metrics-bursty', { tier: 'bursty' })).secret;
    const developer = (await s.createKey('metrics-dev', { tier: 'developer' })).secret;
    for (const expected of [200, 200, 429])
      expect((await s.post('/risk_api/score/', { ip: '192.0.2.7' }, { 'x-api-key': tiny })).status).toBe(expected);
    const gql = () =>
      s.post('/graphql', { query: '{ score(ip: "192.0.2.8") { quota { remaining } } }' }, { 'x-api-key': bursty });
    expect((await gql()).body.data.score.quota.remaining).toBe(999);
    expect((await gql()).body.errors[0].extensions.code).toBe('rate_limited');
    const agent = await mcpClient(s.url, developer);
    expect((await call(agent, 'score_ip', { ip: '192.0.2.9' })).result.isError).toBeFalsy();
    await agent.close();
    const rates = await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        s.post('/risk_api/rate/', { ip: `192.0.2.${20 + i}`, rating: -1 }, { 'x-api-key': developer }),
      ),
    );
    expect(rates.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect((await fetch(`${s.url}/no-such-place/raw-path-marker-1`)).status).toBe(404);
    expect((await fetch(`${s.url}/risk_api/raw-path-marker-2`)).status).toBe(404);

    // State the gauges read: a publication, a feed, one mail waiting in the outbox.
    await publish(s.app.db.prisma, s.app.services.network);
    await s.app.services.publications.refresh();
    await importFeed(s.app.db.prisma, {
      name: 'metrics-feed',
      format: 'plain',
      source: 'test',
      parsed: parseFeedText('198.51.100.0/24\n203.0.113.9\n', 'plain'),
    });
    await s.app.db.prisma.mailOutbox.create({
      data: {
        to: 'ops@example.com',
        subject: 'waiting',
        text: 'body',
        status: 'pending',
        createdAt: new Date(Date.now() - 60_000),
      },
    });

    const r = await scrape();
    expect(r.status, r.text).toBe(200);
    expect(r.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    text = r.text;
    families = parsePrometheusText(text);
  });
  afterAll(() => s?.close());

  it('counts score calls and quota and burst refusals by tier and surface', () => {
    const calls = (tier: string, surface: string) =>
      sampleValue(families, 'risk_score_calls_total', 'risk_score_calls_total', { tier, surface });
    const refused = (tier: string, surface: string, reason: string) =>
      sampleValue(families, 'risk_score_refusals_total', 'risk_score_refusals_total', { tier, surface, reason });
    expect(calls('tiny', 'rest')).toBe(2);
    expect(refused('tiny', 'rest', 'quota')).toBe(1);
    expect(calls('bursty', 'graphql')).toBe(1);
    expect(refused('bursty', 'graphql', 'burst')).toBe(1);
    expect(calls('developer', 'mcp')).toBe(1);
    expect(families.get('risk_score_calls_total')!.samples).toHaveLength(3);
  });

  it('times requests by route pattern and status, with one label value for every path no route took', () => {
    const count = (route: string, method: string, status: string) =>
      sampleValue(families, 'http_request_duration_seconds', 'http_request_duration_seconds_count', {
        route,
        method,
        status,
      });
    expect(count('/risk_api/score', 'POST', '200')).toBe(2);
    expect(count('/risk_api/score', 'POST', '429')).toBe(1);
    expect(count('/risk_api/rate', 'POST', '201')).toBe(5);
    expect(count('/graphql', 'POST', '200')).toBe(2);
    expect(count('/mcp', 'POST', '200')).toBeGreaterThanOrEqual(1);
    expect(count('unmatched', 'GET', '404')).toBe(1);
    expect(count('/risk_api/*', 'GET', '404')).toBe(1);
    const routes = new Set(families.get('http_request_duration_seconds')!.samples.map((x) => x.labels.route));
    expect(
      [...routes].filter((r) => !/^(\/[a-z_.]+)+(\/\*)?$|^unmatched$/.test(r!)),
      'route labels that are not patterns',
    ).toEqual([]);
    expect(text).not.toContain('raw-path-marker');
  });

  it('reports group-commit batch sizes, counter-store and database latency', () => {
    expect(
      sampleValue(families, 'risk_group_commit_batch_size', 'risk_group_commit_batch_size_sum', { writer: 'rating' }),
    ).toBe(5);
    expect(
      sampleValue(families, 'risk_group_commit_batch_size', 'risk_group_commit_batch_size_count', { writer: 'rating' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sampleValue(families, 'risk_counters_duration_seconds', 'risk_counters_duration_seconds_count', {
        operation: 'meterCall',
      }),
    ).toBe(6);
    expect(
      sampleValue(
        families,
        'risk_database_statement_duration_seconds',
        'risk_database_statement_duration_seconds_count',
        { kind: 'query' },
      ),
    ).toBeGreaterThan(0);
  });

  it('reads the publication, feeds and outbox at scrape time', () => {
    expect(sampleValue(families, 'risk_publication_version', 'risk_publication_version')).toBe(
      s.app.services.publications.current().version,
    );
    expect(s.app.services.publications.current().version).toBeGreaterThanOrEqual(1);
    const age = sampleValue(families, 'risk_publication_age_seconds', 'risk_publication_age_seconds')!;
    expect(age).toBeGreaterThanOrEqual(0);
    expect(Number.isFinite(age)).toBe(true);
    expect(sampleValue(families, 'risk_feed_entries', 'risk_feed_entries', { feed: 'metrics-feed' })).toBe(2);
    expect(
      sampleValue(families, 'risk_feed_age_seconds', 'risk_feed_age_seconds', { feed: 'metrics-feed' }),
    ).toBeGreaterThanOrEqual(0);
    expect(sampleValue(families, 'risk_outbox_backlog', 'risk_outbox_backlog', { outbox: 'mail' })).toBe(1);
    expect(
      sampleValue(families, 'risk_outbox_backlog', 'risk_outbox_backlog', { outbox: 'provider_cancellation' }),
    ).toBe(0);
    expect(sampleValue(families, 'risk_outbox_backlog', 'risk_outbox_backlog', { outbox: 'webhook' })).toBe(0);
    expect(
      sampleValue(families, 'risk_outbox_oldest_age_seconds', 'risk_outbox_oldest_age_seconds', { outbox: 'mail' }),
    ).toBeGreaterThanOrEqual(59);
  });

  it("includes prom-client's process metrics and the event-loop delay", () => {
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_gc_duration_seconds',
    ]) {
      expect(families.has(name), name).toBe(true);
    }
  });

  it.skipIf(!HAS_PROMTOOL)('passes promtool check metrics', () => {
    expect(promtoolProblems(text)).toEqual([]); // no exception list: every complaint fails
  });

  it('names the build running: risk_api_build_info{version,commit} 1, and no gauge named like a counter', () => {
    const { version, commit } = buildInfo();
    expect(text).toContain(`risk_api_build_info{version="${version}",commit="${commit}"} 1`);
    expect(families.get('risk_api_build_info')?.type).toBe('gauge');
    for (const [name, family] of families) if (name.endsWith('_total')) expect(family.type, name).toBe('counter');
  });
  if (!HAS_PROMTOOL)
    it.skip('promtool check metrics: SKIPPED, promtool is not installed (apt-get install prometheus; .ci/run does)', () => {});

  it('answers a direct loopback client, and refuses a request a proxy forwarded with a coded 403', async () => {
    const head = await fetch(`${s.url}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      const r = await scrape({ [header]: header === 'forwarded' ? 'for=198.51.100.1' : '198.51.100.1' });
      expect(r.status, header).toBe(403);
      expect(JSON.parse(r.text)).toMatchObject({ ok: false, error: 'metrics_loopback_only' });
    }
    const post = await fetch(`${s.url}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe(`GET /metrics with METRICS_TOKEN set (${backendName})`, () => {
  const token = 'scrape-token-0123456789abcdef';
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ METRICS_TOKEN: token });
  });
  afterAll(() => s?.close());
  /** One scrape, its answer checked against openapi.json. */
  async function scrape(headers: Record<string, string>) {
    const res = await fetch(`${s.url}/metrics`, { headers });
    const text = await res.text();
    assertContract({ method: 'GET', path: '/metrics', status: res.status, headers: res.headers, text });
    return { status: res.status, headers: res.headers, text };
  }

  it('answers any client that sends the bearer token, a forwarded one too', async () => {
    const r = await scrape({ authorization: `Bearer ${token}`, 'x-forwarded-for': '198.51.100.1' });
    expect(r.status).toBe(200);
    expect(parsePrometheusText(r.text).has('risk_score_calls_total')).toBe(true);
  });

  it('refuses a missing, wrong or non-Bearer token with a coded 401 and WWW-Authenticate, loopback or not', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: `Bearer ${token}x` },
      { authorization: `Basic ${token}` },
      { authorization: `Bearer ${token.slice(0, -1)}` },
    ]) {
      const r = await scrape(headers);
      expect(r.status, JSON.stringify(headers)).toBe(401);
      expect(JSON.parse(r.text)).toMatchObject({ ok: false, error: 'metrics_token_invalid' });
      expect(r.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    }
  });
});
