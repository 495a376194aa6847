/**
 * What was reported, in the score answer (docs/risk-model.md#what-was-reported), over HTTP on the backend under test:
 * each field (counts_by_outcome, sources, last_reported_at, feeds) from the caller's live memory before a
 * publication and from the publication after it; another workspace's private reports and ratings never reach a
 * caller, nor its identity; an IP inside a block a feed lists names the feed and the block; REST score and
 * score/batch, GraphQL and MCP answer the same; /dimensions' matched is the score's; a short property run of random
 * writes through the real write path counts exactly what each workspace may see.
 */
import fc from 'fast-check';
import { GraphQLClient, gql } from 'graphql-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, type CommandContext } from '../../src/transport/admin/commands.ts';
import { importFeed } from '../../src/domain/feeds/store.ts';
import { parseFeedText } from '../../src/domain/feeds/parse.ts';
import { OUTCOME_CODES } from '../../src/domain/scoring/weights.ts';
import { backendName } from '../helpers/backend.ts';
import { call, mcpClient } from '../helpers/mcp.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

type Headers = Record<string, string>;
type Reported = {
  counts_by_outcome: Record<string, number>;
  sources: number;
  last_reported_at: string | null;
  feeds: Array<{ name: string; block: string }>;
};
type Dimension = { code: string; matched: boolean; reason: string | null; reported: Reported; entity: unknown };

describe(`what was reported, in the score (${backendName})`, () => {
  let s: TestServer;
  let ctx: CommandContext;
  let keyCount = 0;
  const newKey = async (): Promise<Headers> => ({
    'x-api-key': (await s.createKey(`reported-${++keyCount}`, { tier: 'developer' })).secret,
  });
  beforeAll(async () => {
    s = await startTestServer();
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

  const publish = () => runCommand('publish', {}, ctx);
  const scoreOf = async (ip: string, headers: Headers) => {
    const r = await s.post('/risk_api/score/', { ip }, headers);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  };
  const dims = async (ip: string, headers: Headers): Promise<Record<string, Dimension>> =>
    Object.fromEntries((await scoreOf(ip, headers)).score.dimensions.map((d: Dimension) => [d.code, d]));
  const report = async (ip: string, outcome_code: string, visibility: string, headers: Headers) => {
    const r = await s.post('/risk_api/report/', { kind: 'ipaddress', key: ip, outcome_code, visibility }, headers);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.report.created_at as string;
  };
  const rate = async (ip: string, rating: number, headers: Headers) => {
    const r = await s.post('/risk_api/rate/', { ip, rating }, headers);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.report.created_at as string;
  };
  const newest = (...times: string[]) => times.reduce((a, b) => (a > b ? a : b));

  it('counts outcomes, sources and recency from the live memory at once, from the publication after it; never another workspace private evidence', async () => {
    const [a, b, c] = [await newKey(), await newKey(), await newKey()];
    const ip = '8.8.8.20';
    const aFraud = await report(ip, 'fraud_confirmed', 'community', a);
    const aSpam = await report(ip, 'spam', 'workspace', a);
    const aRating = await rate(ip, -1, a);
    const bSpam = await report(ip, 'spam', 'community', b);
    const bChargeback = await report(ip, 'chargeback', 'workspace', b);
    await rate(ip, -1, b);

    // Before any publication: each workspace sees its own writes only, at once.
    expect((await dims(ip, a)).ip!.reported).toEqual({
      counts_by_outcome: { fraud_confirmed: 1, spam: 1 },
      sources: 1,
      last_reported_at: newest(aFraud, aSpam, aRating),
      feeds: [],
    });
    expect((await dims(ip, c)).ip!.reported).toEqual({
      counts_by_outcome: {},
      sources: 0,
      last_reported_at: null,
      feeds: [],
    });

    await publish();
    // Published: every community report reaches everyone; private reports and ratings only their author.
    expect((await dims(ip, a)).ip!.reported).toEqual({
      counts_by_outcome: { fraud_confirmed: 1, spam: 2 },
      sources: 2,
      last_reported_at: newest(aFraud, aSpam, aRating, bSpam),
      feeds: [],
    });
    expect((await dims(ip, b)).ip!.reported.counts_by_outcome).toEqual({
      fraud_confirmed: 1,
      spam: 1,
      chargeback: 1,
    });
    const outsider = await scoreOf(ip, c);
    const seen = Object.fromEntries(outsider.score.dimensions.map((d: Dimension) => [d.code, d]));
    expect(seen.ip.reported).toEqual({
      counts_by_outcome: { fraud_confirmed: 1, spam: 1 },
      sources: 2,
      last_reported_at: newest(aFraud, bSpam),
      feeds: [],
    });
    expect(seen.ip.reported.last_reported_at < bChargeback).toBe(true); // B's private report is not even its time
    // The IP's subnet holds what rolled up from it: the same community reports and sources.
    expect(seen.subnet.reported).toMatchObject({ counts_by_outcome: { fraud_confirmed: 1, spam: 1 }, sources: 2 });
    // No other workspace is named anywhere in the answer.
    expect(JSON.stringify(outsider)).not.toMatch(/reported-[12]|ws:/);

    // After the publication: A's new community report counts for A at once, for C at the next publication.
    const aScraping = await report(ip, 'scraping', 'community', a);
    expect((await dims(ip, a)).ip!.reported).toMatchObject({
      counts_by_outcome: { fraud_confirmed: 1, spam: 2, scraping: 1 },
      sources: 2,
      last_reported_at: aScraping,
    });
    expect((await dims(ip, c)).ip!.reported.counts_by_outcome).toEqual({ fraud_confirmed: 1, spam: 1 });
    await publish();
    expect((await dims(ip, c)).ip!.reported.counts_by_outcome).toEqual({ fraud_confirmed: 1, spam: 1, scraping: 1 });
    expect((await dims(ip, a)).ip!.reported.counts_by_outcome).toEqual({ fraud_confirmed: 1, spam: 2, scraping: 1 });
  });

  it('names the feed and the block for an IP inside a listed block, and not for one outside it', async () => {
    const k = await newKey();
    const subnet = (await dims('9.9.9.5', k)).subnet!.entity as { key: string };
    expect(subnet.key).toBe('9.9.9.0/24'); // the test network's announced prefix, which the blocks below lie in
    await importFeed(s.app.db.prisma, {
      name: 'drop-test',
      format: 'plain',
      source: 'test',
      parsed: parseFeedText('9.9.9.0/28\n9.9.9.200/32\n', 'plain'),
    });
    await publish();
    const inside = await dims('9.9.9.5', k);
    expect(inside.ip).toMatchObject({
      matched: false,
      reason: 'no evidence names the IP itself; it lies in 9.9.9.0/28, listed by the feed drop-test',
      reported: { feeds: [{ name: 'drop-test', block: '9.9.9.0/28' }], sources: 0 },
    });
    expect(inside.subnet!.reported).toMatchObject({ feeds: [{ name: 'drop-test', block: '9.9.9.0/28' }], sources: 1 });
    const outside = await dims('9.9.9.100', k);
    expect(outside.ip).toMatchObject({ matched: false, reported: { feeds: [] } });
    expect(outside.ip!.reason).not.toContain('drop-test');
    const listed = await dims('9.9.9.200', k);
    expect(listed.ip).toMatchObject({
      matched: true,
      reason: null,
      reported: { feeds: [{ name: 'drop-test', block: '9.9.9.200/32' }], sources: 1, counts_by_outcome: {} },
    });
    expect(listed.ip!.reported.last_reported_at).not.toBeNull();
  });

  it('answers the same on score, score/batch, GraphQL and MCP', async () => {
    const k = await newKey();
    const ip = '8.8.8.20';
    await report(ip, 'bot_activity', 'workspace', k);
    const rest = await scoreOf(ip, k);
    const batch = await s.post('/risk_api/score/batch/', { ips: [ip] }, k);
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    expect(batch.body.results[0].score).toEqual(rest.score);

    const g = await new GraphQLClient(`${s.url}/graphql`, { headers: k }).request<{
      score: { score: { dimensions: Array<{ code: string; reported: any }> } };
    }>(
      gql`query($ip: String!) { score(ip: $ip) { score { dimensions { code
        reported { outcomes { outcomeCode reports } sources lastReportedAt feeds { name block } } } } } }`,
      { ip },
    );
    for (const [i, d] of g.score.score.dimensions.entries()) {
      const r: Reported = rest.score.dimensions[i].reported;
      expect(d.reported, d.code).toEqual({
        outcomes: Object.entries(r.counts_by_outcome).map(([outcomeCode, reports]) => ({ outcomeCode, reports })),
        sources: r.sources,
        lastReportedAt: r.last_reported_at,
        feeds: r.feeds,
      });
    }
    expect(g.score.score.dimensions[0]!.reported.outcomes).toContainEqual({ outcomeCode: 'bot_activity', reports: 1 });

    const client = await mcpClient(s.url, k['x-api-key']!);
    try {
      expect((await call(client, 'score_ip', { ip })).body.score).toEqual(rest.score);
    } finally {
      await client.close();
    }
  });

  it("/dimensions' matched and reason are the score's: a summary whose evidence rounds to 0 is unmatched on both", async () => {
    const k = await newKey();
    const ip = '8.8.8.20';
    const scored = (await scoreOf(ip, k)).score.dimensions as Dimension[];
    const r = await s.post('/risk_api/dimensions/', { ip }, k);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const read = r.body.dimensions as Array<{
      code: string;
      matched: boolean;
      reason: string | null;
      published: unknown;
    }>;
    expect(read.map((d) => [d.code, d.matched, d.reason])).toEqual(
      read.map((d) => {
        const same = scored.find((x) => x.code === d.code)!;
        return [d.code, same.matched, same.reason];
      }),
    );
    // The one IP's reports roll a sliver into its country: a summary exists, and it does not count.
    expect(read.find((d) => d.code === 'country')).toMatchObject({ matched: false });
    expect(read.find((d) => d.code === 'country')!.published).not.toBeNull();
  });

  it('property: random writes through the real write path count exactly what each workspace may see', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            who: fc.integer({ min: 0, max: 2 }),
            outcome: fc.option(fc.constantFrom(...OUTCOME_CODES), { nil: null }), // null: a rating
            community: fc.boolean(),
            late: fc.boolean(),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        async (writes) => {
          const ip = `8.8.4.${++run}`;
          // Keys of the run's own: a key's score calls are limited per second (its burst), and one run makes up to 3 each.
          const keys = [await newKey(), await newKey(), await newKey()];
          const ordered = [...writes.filter((w) => !w.late), ...writes.filter((w) => w.late)];
          for (const [i, w] of ordered.entries()) {
            if (i === writes.filter((x) => !x.late).length) await publish();
            if (w.outcome === null) await rate(ip, -1, keys[w.who]!);
            else await report(ip, w.outcome, w.community ? 'community' : 'workspace', keys[w.who]!);
          }
          if (ordered.every((w) => !w.late)) await publish();
          for (let me = 0; me < 3; me++) {
            const seen = ordered.filter((w) => w.who === me || (!w.late && w.outcome !== null && w.community));
            const expected: Record<string, number> = {};
            for (const code of OUTCOME_CODES) {
              const n = seen.filter((w) => w.outcome === code).length;
              if (n > 0) expected[code] = n;
            }
            const got = (await dims(ip, keys[me]!)).ip!.reported;
            expect(got.counts_by_outcome, `workspace ${me} of ${JSON.stringify(ordered)}`).toEqual(expected);
            expect(got.sources, `workspace ${me} of ${JSON.stringify(ordered)}`).toBe(
              new Set(seen.map((w) => w.who)).size,
            );
          }
        },
      ),
      { numRuns: 6 },
    );
  });
});
