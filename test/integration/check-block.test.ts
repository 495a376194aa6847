import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphQLClient, gql } from 'graphql-request';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { call, mcpClient } from '../helpers/mcp.ts';
import { TierCatalog } from '../../src/domain/metering/tiers.ts';
import { ScoreMeter } from '../../src/domain/metering/meter.ts';
import { publish } from '../../src/domain/publishing/index.ts';
import { keyQuotaKey, quotaKey, utcDay } from '../../src/platform/counters/keys.ts';
import { blockStatements } from '../../src/domain/lookups/block-queries.ts';
import { parseBlock, type CidrBlock } from '../../src/domain/network/block.ts';
import { Prisma } from '../../src/generated/prisma/client.ts';

/**
 * POST /risk_api/check_block/, GraphQL block and the MCP tool check_block: the bounds (and nothing counted when
 * refused), host bits cleared, paging in address order, counts by outcome over what the caller may see, workspace
 * isolation, the networks holding the block, scores from the publication, one score call per page.
 */
describe(`check_block (${backendName})`, () => {
  let s: TestServer;
  let now = Date.parse('2026-11-24T06:00:00.100Z');
  beforeAll(async () => {
    s = await startTestServer();
    await s.app.db.prisma.tier.createMany({
      data: [
        {
          code: 'k-tiny',
          name: 'Block tiny',
          scoreEligible: true,
          dailyLimit: 2,
          burstPerSecond: 5,
          directReportLimit: 5,
          agentDailyLimit: 2,
          priceCents: 0,
          position: 90,
        },
      ],
    });
    s.app.services.tiers = await TierCatalog.load(s.app.db.prisma);
    s.app.services.meter = new ScoreMeter(s.app.counters, () => now);
  });
  afterAll(() => s?.close());

  const check = (key: string, body: unknown) => s.post('/risk_api/check_block/', body, { 'x-api-key': key });
  const report = async (key: string, ip: string, outcome: string, more: Record<string, unknown> = {}) => {
    const r = await s.post(
      '/risk_api/report/',
      { kind: 'ipaddress', key: ip, outcome_code: outcome, severity: 'high', ...more },
      { 'x-api-key': key },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  };
  const rate = async (key: string, ip: string, rating: number) => {
    expect((await s.post('/risk_api/rate/', { ip, rating }, { 'x-api-key': key })).status).toBe(201);
  };
  async function counters(prefix: string, surface: 'api_score' | 'agent_score' = 'api_score') {
    const key = await s.app.db.prisma.apiKey.findFirstOrThrow({ where: { prefix } });
    const day = utcDay(now);
    return s.app.counters.peekMany([
      quotaKey(String(key.workspaceId), surface, day),
      keyQuotaKey(String(key.workspaceId), surface, day, prefix),
    ]);
  }
  const tick = () => {
    now += 1000;
  };

  it('refuses blocks larger than IPv4 /16 or IPv6 /48 naming the bound, and other bad bodies, counting nothing', async () => {
    const { secret, prefix } = await s.createKey('block-bounds', { tier: 'business' });
    const refused: Array<[unknown, string, string]> = [
      [{ cidr: '9.8.0.0/15' }, 'cidr', 'IPv4 /16'],
      [{ cidr: '2001:db8::/47' }, 'cidr', 'IPv6 /48'],
      [{ cidr: '0.0.0.0/0' }, 'cidr', 'IPv4 /16'],
      [{ cidr: '9.9.9.9' }, 'cidr', 'prefix length'],
      [{ cidr: '9.9.9.0/33' }, 'cidr', 'prefix length of 0 to 32'],
      [{ cidr: '9.9.9.0/2x' }, 'cidr', 'prefix length'],
      [{ cidr: '::ffff:9.9.9.0/120' }, 'cidr', 'IPv4-mapped'],
      [{ cidr: '09.9.9.0/24' }, 'cidr', 'address'],
      [{ cidr: 7 }, 'cidr', 'must be a string'],
      [{}, 'cidr', 'is required'],
      [{ cidr: '9.9.9.0/24', limit: 0 }, 'limit', 'must be 1 to 100'],
      [{ cidr: '9.9.9.0/24', limit: 101 }, 'limit', 'must be 1 to 100'],
      [{ cidr: '9.9.9.0/24', limit: 2.5 }, 'limit', 'must be an integer'],
      [{ cidr: '9.9.9.0/24', cursor: '9.9.10.1' }, 'cursor', 'next_cursor'],
      [{ cidr: '9.9.9.0/24', cursor: '2001:db8::1' }, 'cursor', 'next_cursor'],
      [{ cidr: '9.9.9.0/24', ip: '9.9.9.9' }, 'ip', 'is not a known field'],
    ];
    for (const [body, field, message] of refused) {
      const r = await check(secret, body);
      expect(r.status, JSON.stringify([body, r.body])).toBe(400);
      expect(r.body.error).toBe('invalid_request');
      expect(r.body.details, JSON.stringify(body)).toEqual([{ field, message: expect.stringContaining(message) }]);
    }
    expect(await counters(prefix)).toEqual([0, 0]);
    // the bounds themselves are accepted, each counted once
    for (const cidr of ['9.8.0.0/16', '2001:db8::/48', '9.9.9.9/32', '2001:db8::1/128']) {
      const r = await check(secret, { cidr });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.block.cidr).toBe(cidr);
    }
    const v6 = await check(secret, { cidr: '2001:DB8:0:0::/48' });
    expect(v6.body.block).toMatchObject({
      cidr: '2001:db8::/48',
      version: 6,
      prefix: 48,
      first_address: '2001:db8::',
      last_address: '2001:db8:0:ffff:ffff:ffff:ffff:ffff',
      size: String(2n ** 80n),
    });
    expect(await counters(prefix)).toEqual([5, 5]);
    expect(v6.body.quota).toEqual({ daily_limit: 250_000, used_today: 5, remaining: 249_995, over_limit: false });
    expect(v6.headers.get('ratelimit-remaining')).toBe('249995');
  });

  it('clears host bits and says so in query.cidr', async () => {
    const { secret } = await s.createKey('block-host-bits', { tier: 'business' });
    const r = await check(secret, { cidr: ' 9.9.9.7/24' });
    expect(r.status).toBe(200);
    expect(r.body.query).toEqual({ input: ' 9.9.9.7/24', cidr: '9.9.9.0/24', host_bits_cleared: true });
    expect(r.body.block).toMatchObject({
      cidr: '9.9.9.0/24',
      version: 4,
      prefix: 24,
      first_address: '9.9.9.0',
      last_address: '9.9.9.255',
      size: '256',
    });
    expect((await check(secret, { cidr: '9.9.9.0/24' })).body.query).toEqual({
      input: '9.9.9.0/24',
      cidr: '9.9.9.0/24',
      host_bits_cleared: false,
    });
  });

  it('pages the reported and rated IPs in address order, one score call per page', async () => {
    tick();
    const { secret, prefix } = await s.createKey('block-paging', { tier: 'business' });
    const ips = ['5.6.7.10', '5.6.7.9', '5.6.7.200', '5.6.7.1', '5.6.8.1', '5.6.255.255', '5.6.0.0'];
    for (const ip of ips.slice(0, 4)) await report(secret, ip, 'spam');
    for (const ip of ips.slice(4)) await rate(secret, ip, -1);
    await report(secret, '5.7.0.1', 'spam'); // outside the block
    const order = ['5.6.0.0', '5.6.7.1', '5.6.7.9', '5.6.7.10', '5.6.7.200', '5.6.8.1', '5.6.255.255'];
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await check(secret, { cidr: '5.6.0.0/16', limit: 3, ...(cursor ? { cursor } : {}) });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      pages++;
      expect(r.body.ips.items.length).toBeLessThanOrEqual(3);
      seen.push(...r.body.ips.items.map((i: any) => i.ip));
      cursor = r.body.ips.next_cursor;
      if (cursor) expect(cursor).toBe(seen[seen.length - 1]);
    } while (cursor);
    expect(seen).toEqual(order);
    expect(pages).toBe(3);
    expect(await counters(prefix)).toEqual([3, 3]);
    // a page exactly as long as what is left has no next page
    const whole = await check(secret, { cidr: '5.6.0.0/16', limit: 7 });
    expect([whole.body.ips.items.length, whole.body.ips.next_cursor]).toEqual([7, null]);
    const first = await check(secret, { cidr: '5.6.0.0/16' });
    expect(first.body.ips.items).toHaveLength(7); // default page of 50
    // a rated-only IP carries its ratings and no reports
    expect(first.body.ips.items[5]).toMatchObject({
      ip: '5.6.8.1',
      reports: 0,
      ratings: { good: 0, neutral: 0, bad: 1 },
    });
    expect(first.body.ips.items[1]).toMatchObject({
      ip: '5.6.7.1',
      reports: 1,
      ratings: { good: 0, neutral: 0, bad: 0 },
    });
    // IPv6 pages in address order too
    for (const ip of ['2001:4860:0:1::10', '2001:4860::9', '2001:4860:0:ffff::1'])
      await report(secret, ip, 'abuse_other');
    const v6a = await check(secret, { cidr: '2001:4860::/48', limit: 2 });
    expect(v6a.body.ips.items.map((i: any) => i.ip)).toEqual(['2001:4860::9', '2001:4860:0:1::10']);
    const v6b = await check(secret, { cidr: '2001:4860::/48', limit: 2, cursor: v6a.body.ips.next_cursor });
    expect([v6b.body.ips.items.map((i: any) => i.ip), v6b.body.ips.next_cursor]).toEqual([
      ['2001:4860:0:ffff::1'],
      null,
    ]);
  });

  it("counts by outcome what the caller may see, never another workspace's private reports or ratings", async () => {
    tick();
    const a = await s.createKey('block-counts-a', { tier: 'business' });
    const b = await s.createKey('block-counts-b', { tier: 'business' });
    await report(a.secret, '1.1.1.5', 'spam');
    await report(a.secret, '1.1.1.6', 'spam', { visibility: 'community' });
    // one report naming two IPs of the block counts once
    await report(a.secret, '1.1.1.7', 'fraud_watch', {
      related_subjects: [{ kind: 'ipaddress', key: '1.1.1.8', role: 'source_ip' }],
    });
    await rate(a.secret, '1.1.1.5', -1);
    await rate(a.secret, '1.1.1.9', 1);
    await report(b.secret, '1.1.1.20', 'fraud_confirmed', { visibility: 'community' });
    await report(b.secret, '1.1.1.21', 'chargeback');
    await report(b.secret, '1.1.1.5', 'chargeback');
    await rate(b.secret, '1.1.1.5', -1);
    await rate(b.secret, '1.1.1.22', -1);

    const mine = await check(a.secret, { cidr: '1.1.1.0/24' });
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    expect(mine.body.block).toMatchObject({
      counts_by_outcome: { spam: 2, fraud_watch: 1, fraud_confirmed: 1 },
      reports: 4,
      ratings: { good: 1, neutral: 0, bad: 1 },
    });
    expect(mine.body.ips.items.map((i: any) => i.ip)).toEqual([
      '1.1.1.5',
      '1.1.1.6',
      '1.1.1.7',
      '1.1.1.8',
      '1.1.1.9',
      '1.1.1.20',
    ]);
    expect(mine.body.ips.items[0]).toMatchObject({ reports: 1, ratings: { good: 0, neutral: 0, bad: 1 } }); // b's report and rating of it unseen
    expect(mine.body.block.first_seen).toEqual(expect.any(String));
    expect(Date.parse(mine.body.block.last_seen)).toBeGreaterThanOrEqual(Date.parse(mine.body.block.first_seen));

    const theirs = await check(b.secret, { cidr: '1.1.1.0/24' });
    expect(theirs.body.block).toMatchObject({
      counts_by_outcome: { spam: 1, fraud_confirmed: 1, chargeback: 2 },
      reports: 4,
      ratings: { good: 0, neutral: 0, bad: 2 },
    });
    expect(theirs.body.ips.items.map((i: any) => i.ip)).toEqual([
      '1.1.1.5',
      '1.1.1.6',
      '1.1.1.20',
      '1.1.1.21',
      '1.1.1.22',
    ]);
    expect(theirs.body.ips.items[0]).toMatchObject({ ip: '1.1.1.5', reports: 1, ratings: { bad: 1 } });

    // a workspace with nothing of its own sees only the community-visible reports
    const c = await s.createKey('block-counts-c', { tier: 'business' });
    const outsider = await check(c.secret, { cidr: '1.1.1.0/25' });
    expect(outsider.body.block).toMatchObject({
      counts_by_outcome: { spam: 1, fraud_confirmed: 1 },
      reports: 2,
      ratings: { good: 0, neutral: 0, bad: 0 },
    });
    expect(outsider.body.ips.items.map((i: any) => [i.ip, i.reports, i.ratings.bad])).toEqual([
      ['1.1.1.6', 1, 0],
      ['1.1.1.20', 1, 0],
    ]);
    const empty = await check(c.secret, { cidr: '1.1.1.128/25' });
    expect(empty.body.block).toMatchObject({ counts_by_outcome: {}, reports: 0, first_seen: null, last_seen: null });
    expect(empty.body.ips).toEqual({ items: [], next_cursor: null });
  });

  it('names the networks holding the whole block with their summaries, and scores each IP from the publication', async () => {
    tick();
    const { secret } = await s.createKey('block-networks', { tier: 'business' });
    await report(secret, '9.9.9.9', 'fraud_confirmed', { severity: 'critical', visibility: 'community' });
    await publish(s.app.db.prisma, s.app.services.network);
    await s.app.services.publications.refresh();
    const r = await check(secret, { cidr: '9.9.9.0/25' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const n = r.body.block.networks;
    expect([n.subnet.key, n.asn.key, n.org.key, n.reason]).toEqual(['9.9.9.0/24', 'AS19281', 'quad9', null]);
    expect(n.subnet.published).toMatchObject({ counts: { reports: 1 } });
    expect(n.subnet.workspace).toMatchObject({ counts: { reports: 1 } });
    expect(r.body.block.community_signal).toMatchObject({
      available: true,
      reason: null,
      subnet: { key: '9.9.9.0/24', ok: true },
    });
    expect(r.body.publication.version).toBeGreaterThan(0);
    const scored = await s.post('/risk_api/score/', { ip: '9.9.9.9' }, { 'x-api-key': secret });
    expect(r.body.ips.items).toEqual([
      expect.objectContaining({
        ip: '9.9.9.9',
        score: scored.body.score.overall_score,
        level: scored.body.score.overall_risk_level,
      }),
    ]);
    expect(r.body.ips.items[0].score).toBeGreaterThan(0);

    // a /16 wider than the fallback /24 of its first address: no single network, said so
    const wide = await check(secret, { cidr: '9.9.0.0/16' });
    expect(wide.body.block.networks).toMatchObject({
      subnet: null,
      asn: null,
      org: null,
      reason: expect.stringContaining('more than one announced subnet'),
    });
    expect(wide.body.block.community_signal).toMatchObject({
      available: false,
      subnet: null,
      reason: expect.stringContaining('no network signal'),
    });
    expect(wide.body.ips.items.map((i: any) => i.ip)).toEqual(['9.9.9.9']);
    // a special-purpose block belongs to no network
    const lan = await check(secret, { cidr: '10.1.0.0/16' });
    expect(lan.body.block.networks.reason).toContain('10.0.0.0/8');
  });

  it('refuses over quota or burst with 429 and an ineligible tier with 403, counting nothing', async () => {
    tick();
    const { secret, prefix } = await s.createKey('block-quota', { tier: 'k-tiny' });
    expect((await check(secret, { cidr: '9.9.9.0/24' })).status).toBe(200);
    expect((await check(secret, { cidr: '9.9.9.0/24' })).status).toBe(200);
    const over = await check(secret, { cidr: '9.9.9.0/24' });
    expect([over.status, over.body.error]).toEqual([429, 'quota_exceeded']);
    expect(await counters(prefix)).toEqual([2, 2]);
    const free = await s.createKey('block-free', { tier: 'free' });
    const r = await check(free.secret, { cidr: '9.9.9.0/24' });
    expect([r.status, r.body.error]).toEqual([403, 'tier_not_eligible']);
    expect(await counters(free.prefix)).toEqual([0, 0]);
  });

  it('GraphQL block answers the same content on the same quota, paging with first/after', async () => {
    tick();
    const { secret, prefix } = await s.createKey('block-gql', { tier: 'business' });
    for (const ip of ['5.5.6.3', '5.5.6.1', '5.5.6.2']) await report(secret, ip, 'spam');
    const client = new GraphQLClient(`${s.url}/graphql`, { headers: { 'x-api-key': secret } });
    const doc = gql`query($after: String) { block(cidr: "5.5.6.0/24", first: 2, after: $after) {
      query { cidr hostBitsCleared } quota { usedToday }
      block { cidr size countsByOutcome { outcomeCode reports } reports networks { code entity { key } } communitySignal { available } }
      ips { nodes { ip score level reports ratings { bad } } nextCursor } } }`;
    const one = (await client.request<any>(doc)).block;
    expect(one.query).toEqual({ cidr: '5.5.6.0/24', hostBitsCleared: false });
    expect(one.block).toMatchObject({
      cidr: '5.5.6.0/24',
      size: '256',
      countsByOutcome: [{ outcomeCode: 'spam', reports: 3 }],
      reports: 3,
    });
    expect(one.ips.nodes.map((i: any) => i.ip)).toEqual(['5.5.6.1', '5.5.6.2']);
    const two = (await client.request<any>(doc, { after: one.ips.nextCursor })).block;
    expect([two.ips.nodes.map((i: any) => i.ip), two.ips.nextCursor]).toEqual([['5.5.6.3'], null]);
    expect(two.quota.usedToday).toBe(2);
    const rest = await check(secret, { cidr: '5.5.6.0/24', limit: 2 });
    expect(rest.body.ips.items.map((i: any) => i.ip)).toEqual(one.ips.nodes.map((i: any) => i.ip));
    expect(rest.body.quota.used_today).toBe(3);
    await expect(client.request(gql`{ block(cidr: "5.4.0.0/15") { query { cidr } } }`)).rejects.toThrow(/IPv4 \/16/);
    await expect(client.request(gql`{ block(cidr: "5.5.6.0/24", first: 101) { query { cidr } } }`)).rejects.toThrow(
      /1 to 100/,
    );
    expect(await counters(prefix)).toEqual([3, 3]);
  });

  it('MCP check_block answers the block on the agent quota, never the API quota', async () => {
    tick();
    const { secret, prefix } = await s.createKey('block-mcp', { tier: 'k-tiny' });
    const client = await mcpClient(s.url, secret);
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'check_block')!;
    expect(tool.inputSchema.required).toEqual(['cidr']);
    const { result, body } = await call(client, 'check_block', { cidr: '9.9.9.0/24', limit: 5 });
    expect(result.isError, JSON.stringify(body)).toBeFalsy();
    expect(body).toMatchObject({
      ok: true,
      endpoint: 'check_block',
      query: { cidr: '9.9.9.0/24' },
      quota: { daily_limit: 2, used_today: 1, resets_at: expect.any(String) },
    });
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(text).toContain('9.9.9.0/24 (256 addresses) in 9.9.9.0/24 (AS19281');
    expect(text).toContain('9.9.9.9: ');
    const refused = await call(client, 'check_block', { cidr: '9.0.0.0/8' });
    expect(refused.body.details).toEqual([{ field: 'cidr', message: expect.stringContaining('IPv4 /16') }]);
    expect(await counters(prefix, 'agent_score')).toEqual([1, 1]);
    expect(await counters(prefix, 'api_score')).toEqual([0, 0]);
    await client.close();
  });
  it("reads the block's IP subjects as a range of the inet index, never every subject", async () => {
    const block = (parseBlock('5.6.0.0/16') as { block: CidrBlock }).block;
    const plans: string[] = [];
    // What is checked is that the index serves each statement's range (its expression and predicate match), which is
    // what bounds the work on a large table. The workspace gets a realistic number of IP subjects outside the block,
    // with statistics saying so (the embedded database analyzes its tables as PostgreSQL's autovacuum does): planned
    // for a handful of rows, any index is as good. Seq scans off, for the same reason.
    await s.app.db.prisma.$executeRawUnsafe(`INSERT INTO "Subject" ("workspaceId", "kind", "key")
      SELECT 1, 'ipaddress', '10.77.' || (g / 256) || '.' || (g % 256) FROM generate_series(0, 4999) g ON CONFLICT DO NOTHING`);
    await s.app.db.prisma.$executeRawUnsafe('ANALYZE "Subject"');
    await s.app.db.prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
      for (const statement of [
        blockStatements.page(1, block, null, 51),
        blockStatements.page(1, block, '5.6.7.9', 51),
        blockStatements.outcomes(1, block),
        blockStatements.ratings(1, block),
      ]) {
        const rows = await tx.$queryRaw<Array<{ 'QUERY PLAN': string }>>(Prisma.sql`EXPLAIN ${statement}`);
        plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
      }
    });
    for (const plan of plans) {
      expect(plan).toMatch(
        /Index (Only )?Scan using "?Subject_ip_address_idx"?|Bitmap Index Scan on "?Subject_ip_address_idx"?/,
      );
      expect(plan).toMatch(/Index Cond: .*key\)::inet >=? /);
    }
    // the page walks the index in address order and stops (no sort of the block's subjects), and checks each
    // subject's community reports through its own rows, never by hashing every community report there is
    for (const page of plans.slice(0, 2)) {
      expect(page).not.toMatch(/Sort Key|hashed SubPlan/);
      expect(page).toMatch(/Index Cond: \("subjectId" = s\.id\)/);
    }
  });
});
