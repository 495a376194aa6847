import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { call, mcpClient } from '../helpers/mcp.ts';
import { TierCatalog } from '../../src/domain/metering/tiers.ts';
import { publish } from '../../src/domain/publishing/index.ts';
import { quotaKey, utcDay } from '../../src/platform/counters/keys.ts';
import { riskLevel } from '../../src/domain/scoring/levels.ts';

/**
 * GET /risk_api/blocklist/ and the MCP tool get_blocklist (docs/api.md#blocklist): the list agrees with the score
 * answers it is drawn from, the workspace's own layer and rules apply to its list only, the formats, ETag and 304
 * (uncounted), the metering of a list answered, and every bad query refused with a code, counting nothing.
 */
describe(`blocklist (${backendName})`, () => {
  let s: TestServer;
  let a: { secret: string; prefix: string };
  let b: { secret: string; prefix: string };
  const shared = '203.0.113.7';
  const privateToA = '198.51.100.9';
  beforeAll(async () => {
    s = await startTestServer();
    await s.app.db.prisma.tier.create({
      data: {
        code: 'list-tiny',
        name: 'List tiny',
        scoreEligible: true,
        dailyLimit: 1000,
        burstPerSecond: 100,
        directReportLimit: 5,
        agentDailyLimit: 3,
        priceCents: 0,
        position: 90,
      },
    });
    s.app.services.tiers = await TierCatalog.load(s.app.db.prisma);
    a = await s.createKey('blocklist-a', { tier: 'list-tiny' });
    b = await s.createKey('blocklist-b', { tier: 'business' });
    const report = async (key: string, ip: string, visibility: string) => {
      const r = await s.post(
        '/risk_api/report/',
        { kind: 'ipaddress', key: ip, outcome_code: 'fraud_confirmed', severity: 'critical', visibility },
        { 'x-api-key': key },
      );
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    };
    await report(a.secret, shared, 'community');
    await report(b.secret, shared, 'community');
    await report(a.secret, privateToA, 'workspace');
    await publish(s.app.db.prisma, s.app.services.network);
    await s.app.services.publications.refresh();
  });
  afterAll(() => s?.close());

  const get = (key: string | null, query = '', headers: Record<string, string> = {}) =>
    fetch(`${s.url}/risk_api/blocklist/${query}`, { headers: { ...(key ? { 'x-api-key': key } : {}), ...headers } });
  const used = async (key: { prefix: string }, surface: 'api_score' | 'agent_score' = 'api_score') => {
    const row = await s.app.db.prisma.apiKey.findFirstOrThrow({ where: { prefix: key.prefix } });
    return (await s.app.counters.peekMany([quotaKey(String(row.workspaceId), surface, utcDay(Date.now()))]))[0];
  };
  const json = async (key: string, query = '') => {
    const r = await get(key, `?format=json${query}`);
    expect(r.status, await r.clone().text()).toBe(200);
    return (await r.json()) as {
      threshold: { min_score: number; level: string };
      matched: number;
      truncated: boolean;
      rules_not_listed: number;
      entries: Array<{ entry: string; kind: string; score: number; level: string; source: string }>;
    };
  };
  const lines = (text: string) => text.split('\n').filter(Boolean).sort();
  const overrides = async (key: string, body: object) => {
    const r = await s.post('/risk_api/overrides/', body, { 'x-api-key': key });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.rule.id as number;
  };

  it('lists each IP with the overall score the score answer gives the workspace, at or above the level', async () => {
    const list = await json(a.secret, '&level=low');
    expect(list.threshold).toEqual({ min_score: 10, level: 'low' });
    const ips = list.entries.filter((e) => e.kind === 'ip');
    expect(ips.map((e) => e.entry).sort()).toEqual([privateToA, shared].sort());
    for (const e of ips) {
      const answer = await s.post('/risk_api/score/', { ip: e.entry }, { 'x-api-key': b.secret });
      const scoredByA = await s.post('/risk_api/score/', { ip: e.entry }, { 'x-api-key': a.secret });
      expect(e.score).toBe(scoredByA.body.score.overall_score);
      expect(e.level).toBe(scoredByA.body.score.overall_risk_level);
      expect(e.level).toBe(riskLevel(e.score));
      // B does not see A's private evidence: only the shared IP scores for B
      if (e.entry === privateToA) expect(answer.body.score.overall_score).toBeLessThan(e.score);
      expect(e.source).toBe('evidence');
    }
    // a threshold above every score lists nothing
    const top = Math.max(...list.entries.map((e) => e.score));
    if (top < 100) expect((await json(a.secret, `&min_score=${top + 1}`)).entries).toEqual([]);
  });

  it("keeps each workspace's own layer and rules to its own list", async () => {
    const before = await json(b.secret, '&level=low');
    expect(before.entries.map((e) => e.entry)).toEqual([shared]);
    const deny = await overrides(a.secret, { target: '192.0.2.55', action: 'deny', reason: 'card testing' });
    const denyBlock = await overrides(a.secret, { target: '192.0.2.128/25', action: 'deny', reason: 'bad range' });
    const allow = await overrides(a.secret, { target: shared, action: 'allow', reason: 'our partner' });
    await overrides(a.secret, { target: 'AS64500', action: 'deny', reason: 'not expanded' });
    const list = await json(a.secret, '&level=low');
    const byEntry = Object.fromEntries(list.entries.map((e) => [e.entry, e]));
    expect(byEntry[shared]).toBeUndefined();
    const denied = await s.post('/risk_api/score/', { ip: '192.0.2.55' }, { 'x-api-key': a.secret });
    expect(byEntry['192.0.2.55']).toMatchObject({ kind: 'ip', level: 'critical', source: 'rule' });
    expect(byEntry['192.0.2.55']!.score).toBe(denied.body.score.overall_score);
    expect(byEntry['192.0.2.128/25']).toMatchObject({ kind: 'block', score: 85, level: 'critical', source: 'rule' });
    expect(byEntry[privateToA]).toMatchObject({ source: 'evidence' });
    expect(list.rules_not_listed).toBe(1);
    // B sees none of A's rules nor A's private evidence
    expect(await json(b.secret, '&level=low')).toEqual(before);
    // an allowed address inside a denied block leaves the block out (counted), never blocks the address
    await overrides(a.secret, { target: '192.0.2.200', action: 'allow', reason: 'our office' });
    const after = await json(a.secret, '&level=low');
    expect(after.entries.map((e) => e.entry)).not.toContain('192.0.2.128/25');
    expect(after.rules_not_listed).toBe(2);
    for (const id of [deny, denyBlock, allow])
      expect((await s.post('/risk_api/overrides/expire/', { id }, { 'x-api-key': a.secret })).status).toBe(200);
  });

  it('answers 304 to a current If-None-Match without counting, and 200 with a new tag once the list changes', async () => {
    const first = await get(b.secret, '?level=low');
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{32}"$/);
    expect(first.headers.get('ratelimit-limit')).toBe('250000');
    const counted = await used(b);
    const again = await get(b.secret, '?level=low', { 'if-none-match': `W/${etag}, "other"` });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(await used(b)).toBe(counted);
    // another format is another body: another tag
    const csv = await get(b.secret, '?level=low&format=csv', { 'if-none-match': etag });
    expect(csv.status).toBe(200);
    expect(await used(b)).toBe(counted! + 1);
    const rule = await overrides(b.secret, { target: '192.0.2.77', action: 'deny', reason: 'new' });
    const changed = await get(b.secret, '?level=low', { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(lines(await changed.text())).toEqual(['192.0.2.77', shared].sort());
    await s.post('/risk_api/overrides/expire/', { id: rule }, { 'x-api-key': b.secret });
  });

  it('renders text, CSV, nftables and ipset, and keeps the riskiest entries under limit', async () => {
    const rule = await overrides(b.secret, { target: '2001:db8:7::/48', action: 'deny', reason: 'v6 range' });
    const text = await (await get(b.secret, '?level=low')).text();
    expect(lines(text)).toEqual(['2001:db8:7::/48', shared].sort());
    expect(text.endsWith('\n')).toBe(true);
    const csv = await (await get(b.secret, '?level=low&format=csv')).text();
    expect(csv.split('\r\n')[0]).toBe('entry,kind,score,level,source');
    expect(csv).toContain('2001:db8:7::/48,block,85,critical,rule\r\n');
    const nft = await (await get(b.secret, '?level=low&format=nftables&set_name=edge')).text();
    expect(nft).toContain('set edge_v4 {');
    expect(nft).toMatch(/set edge_v6 \{[^}]*elements = \{\s*2001:db8:7::\/48\s*\}/);
    expect(nft).toContain('ip saddr @edge_v4 drop');
    const ipset = await (await get(b.secret, '?level=low&format=ipset')).text();
    expect(ipset).toContain(`add risk_api_v4_new ${shared}\n`);
    expect(ipset).toContain('add risk_api_v6_new 2001:db8:7::/48\n');
    expect(ipset).toContain('swap risk_api_v4_new risk_api_v4\n');
    // nft checks the script's syntax without touching the ruleset, where it is installed and may open netlink
    if (existsSync('/usr/sbin/nft')) {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'nft-')), 'list.nft');
      writeFileSync(file, nft);
      try {
        execFileSync('/usr/sbin/nft', ['-c', '-f', file], { stdio: 'pipe' });
      } catch (e) {
        const message = String((e as { stderr?: Buffer }).stderr ?? e);
        // without CAP_NET_ADMIN nft cannot even check: that is the machine, not the script
        if (!/Operation not permitted|cache initialization failed/i.test(message)) throw new Error(message);
      }
    }
    const one = await get(b.secret, '?level=low&limit=1');
    expect(await one.text()).toBe(`${(await json(b.secret, '&level=low')).entries[0]!.entry}\n`);
    expect(one.headers.get('x-blocklist-truncated')).toBe('true');
    expect(one.headers.get('x-blocklist-matched')).toBe('2');
    await s.post('/risk_api/overrides/expire/', { id: rule }, { 'x-api-key': b.secret });
  });

  it('refuses every bad query with a code naming the parameter, counting nothing', async () => {
    const counted = await used(b);
    const refused: Array<[string, string, string]> = [
      ['?level=severe', 'level', 'must be one of'],
      ['?min_score=5', 'min_score', 'must be 10 to 100'],
      ['?min_score=abc', 'min_score', 'must be an integer'],
      ['?limit=0', 'limit', 'must be 1 to 100000'],
      ['?limit=100001', 'limit', 'must be 1 to 100000'],
      ['?limit=1.5', 'limit', 'must be an integer'],
      ['?format=xml', 'format', 'must be one of'],
      ['?set_name=bad%20name', 'set_name', 'must be a letter'],
      ['?set_name=a_name_that_is_far_too_long', 'set_name', 'must be a letter'],
      ['?level=high&min_score=70', 'min_score', 'not both'],
      ['?colour=red', 'colour', 'not a known field'],
      ['?limit=5&limit=6', 'limit', 'must be given once'],
    ];
    for (const [query, field, message] of refused) {
      const r = await get(b.secret, query);
      expect(r.status, query).toBe(400);
      const body = await r.json();
      expect(body.error, query).toBe('invalid_request');
      expect(body.details, query).toEqual(
        expect.arrayContaining([expect.objectContaining({ field, message: expect.stringContaining(message) })]),
      );
    }
    expect((await get(null)).status).toBe(401);
    expect((await (await get('rk_notakey')).json()).error).toBe('invalid_api_key');
    const free = await s.createKey('blocklist-free', { tier: 'free' });
    const r = await get(free.secret);
    expect(r.status).toBe(403);
    expect((await r.json()).error).toBe('tier_not_eligible');
    const post = await s.post('/risk_api/blocklist/', {}, { 'x-api-key': b.secret });
    expect([post.status, post.body.error]).toEqual([405, 'method_not_allowed']);
    expect(await used(b)).toBe(counted);
  });

  it('get_blocklist answers the JSON form on the agent quota, refused once it is used up', async () => {
    const client = await mcpClient(s.url, a.secret);
    try {
      const before = await used(a, 'agent_score');
      const answer = await call(client, 'get_blocklist', { level: 'low', limit: 10 });
      expect(answer.body.ok).toBe(true);
      expect(answer.body.entries.map((e: { entry: string }) => e.entry)).toContain(privateToA);
      expect(answer.body.quota).toMatchObject({ daily_limit: 3, used_today: (before ?? 0) + 1 });
      expect(await used(a, 'agent_score')).toBe((before ?? 0) + 1);
      const bad = await call(client, 'get_blocklist', { format: 'nftables' });
      expect(bad.body.error).toBe('invalid_request');
      await call(client, 'get_blocklist', {});
      await call(client, 'get_blocklist', {});
      const over = await call(client, 'get_blocklist', {});
      expect(over.body.error).toBe('quota_exceeded');
      expect(await used(a, 'agent_score')).toBe(3);
    } finally {
      await client.close();
    }
  });
});
