/**
 * The workspace's memory of an IP in `score` (docs/decisions/0016-score-reads-memory-not-the-database.md): counted right
 * after ratings, reports and reports naming the IP as a related subject, on the embedded and the
 * PostgreSQL backend, equal to a recount of the whole history, and read with no database statement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { installStatementCounter } from '../helpers/statement-count.ts';
import { maintainedMemory, recountMemory } from '../helpers/memory-recount.ts';
import { IpMemoryCache } from '../../src/domain/memory/ip-memory.ts';

describe(`the workspace's memory in score (${backendName})`, () => {
  const counter = installStatementCounter(); // before the server opens its database
  let s: TestServer;
  let auth: Record<string, string>;
  let other: Record<string, string>;
  beforeAll(async () => {
    // a verified key is trusted for KEY_CACHE_TTL_MS and then read again (once per key, not per call): the longest
    // trust here, so that a slow run's score calls all fall within the first
    s = await startTestServer({ KEY_CACHE_TTL_MS: '60000' });
    counter.watch(s.app.server);
    auth = { 'x-api-key': (await s.createKey('memory-a', { tier: 'enterprise' })).secret }; // bursts of score calls
    other = { 'x-api-key': (await s.createKey('memory-b', { tier: 'developer' })).secret };
  });
  afterAll(async () => {
    await s?.close();
    counter.restore();
  });

  const memoryOf = async (ip: string, headers = auth) => {
    const r = await s.post('/risk_api/score/', { ip }, headers);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.workspace_memory;
  };
  const rate = async (ip: string, rating: number, note = '', headers: Record<string, string> = auth) => {
    const r = await s.post('/risk_api/rate/', { ip, rating, note }, headers);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  };
  const report = async (body: object, headers: Record<string, string> = auth) => {
    const r = await s.post(
      '/risk_api/report/',
      { title: 'Card testing', outcome_code: 'fraud_watch', ...body },
      headers,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  };

  it('counts ratings, reports and related-subject reports as they are written, equal to a recount of the history', async () => {
    const ip = '203.0.113.40';
    expect(await memoryOf(ip)).toEqual({ ratings: { good: 0, neutral: 0, bad: 0 }, last_rating: null, reports: 0 });
    await rate(ip, -1, 'card testing');
    await rate(ip, 0);
    await rate(ip, 1, 'a regular customer');
    await rate(ip, -1, 'again');
    expect(await memoryOf(ip)).toEqual({
      ratings: { good: 1, neutral: 1, bad: 2 },
      reports: 0,
      last_rating: { rating: -1, note: 'again', created_at: expect.any(String) },
    });
    await report({ kind: 'ipaddress', key: ip });
    await report({
      kind: 'domain',
      key: 'mule.example',
      related_subjects: [{ kind: 'ipaddress', key: ip, role: 'source_ip' }],
    });
    // named by one report in two roles: one report
    await report({
      kind: 'url',
      key: 'https://mule.example/pay',
      related_subjects: [
        { kind: 'ipaddress', key: ip, role: 'source_ip' },
        { kind: 'ipaddress', key: ip, role: 'hosting' },
      ],
    });
    await report({
      kind: 'domain',
      key: 'elsewhere.example',
      related_subjects: [{ kind: 'ipaddress', key: '203.0.113.41', role: 'source_ip' }],
    });
    expect(await memoryOf(ip)).toMatchObject({
      ratings: { good: 1, neutral: 1, bad: 2 },
      reports: 3,
      last_rating: { rating: -1, note: 'again' },
    });
    expect(await memoryOf('203.0.113.41')).toMatchObject({
      ratings: { good: 0, neutral: 0, bad: 0 },
      reports: 1,
      last_rating: null,
    });

    // another workspace's writes about the same IP are its own
    await rate(ip, 1, 'not yours', other);
    expect(await memoryOf(ip, other)).toMatchObject({
      ratings: { good: 1, neutral: 0, bad: 0 },
      reports: 0,
      last_rating: { note: 'not yours' },
    });
    expect(await memoryOf(ip)).toMatchObject({ ratings: { good: 1, neutral: 1, bad: 2 }, reports: 3 });

    const ids = (
      await s.app.db.prisma.subject.findMany({ where: { key: { startsWith: '203.0.113.4' } }, select: { id: true } })
    ).map((x) => x.id);
    expect(ids).toHaveLength(3);
    expect(await maintainedMemory(s.app.db.prisma, ids)).toEqual(await recountMemory(s.app.db.prisma, ids));
    // a process that reads the table from scratch holds what the writing process holds
    const fresh = new IpMemoryCache(s.app.db.prisma);
    await fresh.catchUp();
    const ws = await s.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: 'memory-a' } });
    expect(fresh.get(ws.id, ip)).toEqual(s.app.services.ipMemory.get(ws.id, ip));
    expect(fresh.get(ws.id, ip)).toMatchObject({ goodRatings: 1, neutralRatings: 1, badRatings: 2, reports: 3 });
  });

  it('counts a write sent with an Idempotency-Key once, however often it is replayed', async () => {
    const ip = '203.0.113.50';
    const once = async (path: string, body: object, key: string) => {
      const r = await s.post(path, body, { ...auth, 'idempotency-key': key });
      expect([200, 201], JSON.stringify(r.body)).toContain(r.status); // 200: a replay
    };
    for (let i = 0; i < 3; i++) {
      await once('/risk_api/rate/', { ip, rating: -1, note: 'keyed' }, 'memory-rate-1');
      await once(
        '/risk_api/report/',
        {
          kind: 'domain',
          key: 'keyed.example',
          title: 't',
          outcome_code: 'spam',
          related_subjects: [{ kind: 'ipaddress', key: ip, role: 'source_ip' }],
        },
        'memory-report-1',
      );
    }
    expect(await memoryOf(ip)).toMatchObject({
      ratings: { good: 0, neutral: 0, bad: 1 },
      reports: 1,
      last_rating: { note: 'keyed' },
    });
  });

  it('answers score on IPs the workspace wrote about without a database statement', async () => {
    const ips = Array.from({ length: 40 }, (_, i) => `198.51.100.${i + 1}`);
    for (const [i, ip] of ips.entries()) {
      if (i % 2) await rate(ip, -1, `note ${i}`);
      else
        await report({
          kind: 'domain',
          key: `d${i}.example`,
          related_subjects: [{ kind: 'ipaddress', key: ip, role: 'source_ip' }],
        });
    }
    await memoryOf('192.0.2.1'); // the key is verified (and cached) by a first call
    let answers: Array<{ reports: number; ratings: { bad: number } }> = [];
    const statements = await counter.record(async () => {
      answers = await Promise.all([...ips, '192.0.2.2'].map((ip) => memoryOf(ip)));
    });
    expect(statements, 'statements sent while answering score').toEqual([]);
    expect(
      answers.map((m) => m.reports + m.ratings.bad),
      'each IP: one rating or one report',
    ).toEqual([...ips.map(() => 1), 0]);
    // the counter does see what a request sends: a write's statement is counted
    expect(await counter.record(() => rate(ips[0]!, 1))).not.toEqual([]);
  });
});
