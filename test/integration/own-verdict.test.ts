/**
 * The caller's own verdict in its score (docs/risk-model.md#the-workspaces-own-verdict), over HTTP on the backend
 * under test: its own report counts at once and uncapped, a false_positive after it lowers its own score and not
 * another workspace's, before and after a publication; every surface (REST score and score/batch, GraphQL, MCP)
 * answers the same layers and confidence.
 */
import { GraphQLClient, gql } from 'graphql-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, type CommandContext } from '../../src/transport/admin/commands.ts';
import { backendName } from '../helpers/backend.ts';
import { call, mcpClient } from '../helpers/mcp.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe(`the caller's own verdict in its score (${backendName})`, () => {
  let s: TestServer;
  let a: Record<string, string>;
  let b: Record<string, string>;
  let ctx: CommandContext;
  beforeAll(async () => {
    s = await startTestServer();
    a = { 'x-api-key': (await s.createKey('own-a', { tier: 'developer' })).secret };
    b = { 'x-api-key': (await s.createKey('own-b', { tier: 'developer' })).secret };
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

  const score = async (ip: string, headers: Record<string, string>) => {
    const r = await s.post('/risk_api/score/', { ip }, headers);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.score;
  };
  const report = async (ip: string, outcome_code: string, severity: string, headers: Record<string, string>) => {
    const r = await s.post(
      '/risk_api/report/',
      { kind: 'ipaddress', key: ip, outcome_code, severity, visibility: 'community' },
      headers,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  };

  it('counts its own confirmed fraud at once and uncapped; a false_positive after it lowers only its own score', async () => {
    const ip = '9.9.9.10';
    await report(ip, 'fraud_confirmed', 'critical', a);
    const bad = await score(ip, a);
    // Nothing published yet: the own verdict alone, uncapped: 100·(1 − e^(−1)) = 63, high.
    expect(bad).toMatchObject({ overall_score: 63, overall_risk_level: 'high', driver: 'ip' });
    expect(bad.layers).toMatchObject({ published_score: 0, own_change: 63, own_verdict: 'bad' });
    expect(bad.confidence).toBe(63);
    expect(bad.dimensions[0]).toMatchObject({ code: 'ip', matched: true, score: 63, source: 'workspace' });
    // Another workspace sees nothing of it before a publication.
    expect(await score(ip, b)).toMatchObject({ overall_score: 0, matched_count: 0, confidence: 0 });

    await s.post('/risk_api/rate/', { ip, rating: 1 }, a);
    await report(ip, 'false_positive', 'low', a);
    const cleared = await score(ip, a);
    expect(cleared).toMatchObject({ overall_score: 0, layers: { own_verdict: 'benign', own_change: 0 } });
    expect(cleared.layers.explanation).toContain('benign verdict');

    await runCommand('publish', {}, ctx);
    // Published: the community report reaches everyone; A's newer benign verdict scales its own view down.
    const other = await score(ip, b);
    expect(other.overall_score).toBeGreaterThan(0);
    expect(other.layers).toMatchObject({ published_score: other.overall_score, own_change: 0, own_verdict: null });
    const own = await score(ip, a);
    expect(own.layers.published_score).toBe(other.overall_score);
    expect(own.overall_score).toBeLessThan(other.overall_score);
    expect(own.layers.published_score + own.layers.own_change).toBe(own.overall_score);
  });

  it('moves the score as the README quick start says: 50 medium at once, then 0 minimal after a false_positive', async () => {
    const ip = '203.0.113.9';
    await s.post('/risk_api/rate/', { ip, rating: -1, note: 'card testing' }, a);
    const related = await s.post(
      '/risk_api/report/',
      {
        kind: 'domain',
        key: 'shop-refunds.example',
        title: 'Refund fraud',
        summary: 'Mule domain',
        outcome_code: 'fraud_watch',
        severity: 'high',
        tags: ['refunds'],
        related_subjects: [{ kind: 'ipaddress', key: ip, role: 'source_ip' }],
      },
      a,
    );
    expect(related.status, JSON.stringify(related.body)).toBe(201);
    // B = 0.5 (bad rating) + 0.6 × 1.5 (fraud_watch, high) = 1.4 → 100·(1 − e^(−0.7)) = 50
    expect(await score(ip, a)).toMatchObject({
      overall_score: 50,
      overall_risk_level: 'medium',
      layers: { published_score: 0, own_change: 50, own_verdict: 'bad' },
    });
    await report(ip, 'false_positive', 'low', a);
    expect(await score(ip, a)).toMatchObject({
      overall_score: 0,
      overall_risk_level: 'minimal',
      layers: { own_verdict: 'benign' },
    });
  });

  it('matches only the dimensions one reported IP moves, and counts each source once in confidence', async () => {
    const ip = '1.1.1.77';
    await report(ip, 'fraud_confirmed', 'critical', a);
    await report(ip, 'chargeback', 'high', a);
    await runCommand('publish', {}, ctx);
    const one = await score(ip, b);
    const moved = one.dimensions.filter((d: { score: number }) => d.score >= 1);
    expect(one.matched_count).toBe(moved.length);
    expect(one.matched_count).toBeLessThan(8);
    // The rolled-up slivers (the AS, its organisation, ...) stay in the answer, named, unmatched.
    type Dim = { code: string; score: number; matched: boolean; entity: object | null; reason: string | null };
    const slivers = one.dimensions.filter((d: Dim) => d.entity !== null && d.score === 0);
    expect(slivers.map((d: Dim) => d.code)).toContain('asn');
    for (const d of slivers)
      expect(d, d.code).toMatchObject({ matched: false, reason: expect.stringContaining('too slight') });
    // Every dimension that moves rests on one source, A (two reports): support 1 → 100·(1 − e^(−0.5)) = 39.
    for (const d of moved) expect(d.reported.sources, d.code).toBe(1);
    expect(one.confidence).toBe(39);

    const c = { 'x-api-key': (await s.createKey('own-c', { tier: 'developer' })).secret };
    await report(ip, 'spam', 'high', c);
    await runCommand('publish', {}, ctx);
    const two = await score(ip, b);
    for (const d of two.dimensions.filter((d: { score: number }) => d.score >= 1)) {
      expect(d.reported.sources, d.code).toBe(2);
    }
    // Two distinct sources behind every part of the score: support 2 → 63.
    expect(two.confidence).toBe(63);
  });

  it('answers the same layers and confidence on score, score/batch, GraphQL and MCP', async () => {
    const ip = '9.9.9.11';
    // A key of its own: the earlier tests' score calls with `a` may still be in this second's burst window.
    const c = { 'x-api-key': (await s.createKey('own-c', { tier: 'developer' })).secret };
    await s.post('/risk_api/rate/', { ip, rating: -1, note: 'mule' }, c);
    await report(ip, 'fraud_confirmed', 'high', c);
    const rest = await score(ip, c);
    expect(rest.overall_score).toBeGreaterThanOrEqual(60);

    const batch = await s.post('/risk_api/score/batch/', { ips: [ip] }, c);
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    expect(batch.body.results[0].score).toEqual(rest);

    const gqlClient = new GraphQLClient(`${s.url}/graphql`, { headers: c });
    const g = await gqlClient.request<{ score: { score: any } }>(
      gql`query($ip: String!) { score(ip: $ip) { score { overallScore confidence matchedCount
        layers { publishedScore publishedLevel ownChange ownVerdict ownVerdictAt explanation } } } }`,
      { ip },
    );
    expect(g.score.score).toEqual({
      overallScore: rest.overall_score,
      confidence: rest.confidence,
      matchedCount: rest.matched_count,
      layers: {
        publishedScore: rest.layers.published_score,
        publishedLevel: rest.layers.published_level,
        ownChange: rest.layers.own_change,
        ownVerdict: rest.layers.own_verdict,
        ownVerdictAt: rest.layers.own_verdict_at,
        explanation: rest.layers.explanation,
      },
    });

    const client = await mcpClient(s.url, c['x-api-key']!);
    try {
      const m = await call(client, 'score_ip', { ip });
      expect(m.body.score).toEqual(rest);
      const text = m.result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      expect(text).toContain(rest.layers.explanation);
      expect(text).toContain(`confidence ${rest.confidence}/100`);
    } finally {
      await client.close();
    }
  });
});
