import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { publish, GLOBAL_LAYER } from '../../src/domain/publishing/index.ts';
import { pooledClient, tally, type Answer } from './support.ts';

/**
 * Publishing while scores are read: score calls stream without pause while new publications are
 * built and swapped in. Every answer must be computed against exactly the publication it names:
 * each dimension's score, level and evidence equal that version's published summary of the
 * entity (read from the database right after it was published), and all answers naming one
 * version are identical. Every version adds evidence about the IP, so versions differ and a
 * mixed answer could not pass as either.
 */
const IP = '8.8.4.4';
const PUBLICATIONS = 8;
const STREAMS = 4;

type Summary = { score: number; level: string; counts: Record<string, number> };
type Dim = {
  code: string;
  matched: boolean;
  score: number;
  level: string | null;
  source: string | null;
  contribution: number;
  entity: { key: string } | null;
  evidence: Record<string, number> | null;
};

const pick = (d: any): Dim => ({
  code: d.code,
  matched: d.matched,
  score: d.score,
  level: d.level,
  source: d.source,
  contribution: d.contribution,
  entity: d.entity && { key: d.entity.key },
  evidence: d.evidence,
});
type Seen = { version: number; overall: number; dimensions: Dim[]; raw: string };

const GRAPHQL_SCORE = `query($ip: String!) { score(ip: $ip) {
  publication { version }
  score { overallScore dimensions { code matched score level source contribution entity { key } evidence { reports badRatings neutralRatings goodRatings feedListings } } }
} }`;

/** REST and GraphQL answers in one shape (evidence with the REST field names). */
function normalise(via: 'rest' | 'graphql', a: Answer): Seen | string {
  if (via === 'rest') {
    if (a.status !== 200) return `${a.status} ${a.body?.error ?? a.text.slice(0, 200)}`;
    return {
      version: a.body.publication.version,
      overall: a.body.score.overall_score,
      dimensions: a.body.score.dimensions.map(pick),
      raw: a.text,
    };
  }
  if (a.body?.errors) return `graphql ${a.body.errors[0]?.extensions?.code}`;
  const s = a.body.data.score;
  return {
    version: s.publication.version,
    overall: s.score.overallScore,
    raw: a.text,
    dimensions: s.score.dimensions.map((d: any) =>
      pick({
        ...d,
        evidence: d.evidence && {
          reports: d.evidence.reports,
          bad_ratings: d.evidence.badRatings,
          neutral_ratings: d.evidence.neutralRatings,
          good_ratings: d.evidence.goodRatings,
          feed_listings: d.evidence.feedListings,
        },
      }),
    ),
  };
}

describe(`publishing while scores are read (${backendName})`, () => {
  let s: TestServer;
  let writer: string;
  const readers: string[] = [];
  beforeAll(async () => {
    s = await startTestServer({ PUBLISH_INTERVAL_MS: '0', PUBLICATION_REFRESH_MS: '100', PUBLICATIONS_KEPT: '3' });
    writer = (await s.createKey('pub-writer')).secret;
    // One key per stream: the burst limit is per key (enterprise: 500/s).
    for (let i = 0; i < STREAMS; i++) readers.push((await s.createKey('pub-reader', { tier: 'enterprise' })).secret);
  });
  afterAll(() => s?.close());

  it(`computes every score against exactly one publication while ${PUBLICATIONS} are published`, async () => {
    const expected = new Map<number, Map<string, Summary>>([[0, new Map()]]); // version 0: nothing published yet
    const seen: Seen[] = [];
    const refused: string[] = [];
    const client = pooledClient(STREAMS * 2);
    let done = false;
    const stream = async (i: number) => {
      const via = i === 0 ? 'graphql' : 'rest';
      const headers = { 'x-api-key': readers[i]! };
      while (!done) {
        const a =
          via === 'rest'
            ? await client.post(s.url, '/risk_api/score/', { ip: IP }, headers)
            : await client.post(s.url, '/graphql', { query: GRAPHQL_SCORE, variables: { ip: IP } }, headers);
        const r = normalise(via, a);
        if (typeof r === 'string') refused.push(r);
        else seen.push(r);
        await new Promise((resolve) => setTimeout(resolve, 3)); // stay under the per-key burst limit
      }
    };
    const streams = Array.from({ length: STREAMS }, (_, i) => stream(i));

    try {
      for (let n = 1; n <= PUBLICATIONS; n++) {
        // New evidence about the IP each time, so every version summarises it differently.
        const report = await s.post(
          '/risk_api/report/',
          {
            kind: 'ipaddress',
            key: IP,
            outcome_code: n % 2 ? 'fraud_watch' : 'spam',
            severity: n % 3 ? 'high' : 'medium',
            visibility: 'community',
            share_policy: 'clear_share',
          },
          { 'x-api-key': writer },
        );
        expect(report.status, JSON.stringify(report.body)).toBe(201);
        expect((await s.post('/risk_api/rate/', { ip: IP, rating: -1 }, { 'x-api-key': writer })).status).toBe(201);

        const published = await publish(s.app.db.prisma, s.app.services.network, { keep: 3 });
        const rows = await s.app.db.prisma.publishedSummary.findMany({
          where: { publication: { version: published.version }, workspaceId: GLOBAL_LAYER },
        });
        expect(rows.length, `version ${published.version}`).toBeGreaterThan(0);
        expected.set(
          published.version,
          new Map(
            rows.map((r) => [
              `${r.code}\u0000${r.key}`,
              { score: r.score, level: r.level, counts: r.counts as Record<string, number> },
            ]),
          ),
        );
        await new Promise((resolve) => setTimeout(resolve, 150)); // let each version be served a while
      }
      const last = Math.max(...expected.keys());
      for (let i = 0; i < 100 && !seen.some((x) => x.version === last); i++)
        await new Promise((r) => setTimeout(r, 50));
    } finally {
      done = true;
      await Promise.all(streams);
      client.close();
    }

    expect(refused, `non-200 answers: ${JSON.stringify(tally(refused, (r) => r))}`).toEqual(
      refused.filter((r) => r.endsWith('rate_limited')),
    );
    const versions = [...new Set(seen.map((x) => x.version))].sort((a, b) => a - b);
    console.log(
      `[concurrency-publication] ${seen.length} scores over ${PUBLICATIONS} publications; answers per version ${JSON.stringify(tally(seen, (x) => String(x.version)))}`,
    );
    expect(versions.length, `versions answered: ${versions}`).toBeGreaterThanOrEqual(4);

    for (const answer of seen) {
      const summaries = expected.get(answer.version);
      expect(summaries, `an answer names version ${answer.version}, which was never published`).toBeDefined();
      for (const d of answer.dimensions) {
        const summary = d.entity ? summaries!.get(`${d.code}\u0000${d.entity.key}`) : undefined;
        const got = { matched: d.matched, score: d.score, level: d.level, source: d.source, evidence: d.evidence };
        // Matched when the evidence counts (docs/risk-model.md#overall-score); a rounded-away sliver stays, unmatched.
        const meaningful = summary !== undefined && (summary.score > 0 || (summary.counts.good_ratings ?? 0) > 0);
        const want = summary
          ? {
              matched: meaningful,
              score: summary.score,
              level: meaningful ? summary.level : null,
              source: 'published',
              evidence: summary.counts,
            }
          : { matched: false, score: 0, level: null, source: null, evidence: null };
        expect(got, `version ${answer.version}, ${d.code} ${d.entity?.key}: ${answer.raw.slice(0, 600)}`).toEqual(want);
      }
    }
    // All answers naming one version agree on everything scored.
    for (const v of versions) {
      const forms = new Set(
        seen
          .filter((x) => x.version === v)
          .map((x) => JSON.stringify({ overall: x.overall, dimensions: x.dimensions })),
      );
      expect(
        forms.size,
        `version ${v} answered ${forms.size} different scores: ${[...forms].slice(0, 2).join('\n')}`,
      ).toBe(1);
    }
    // The check could see a mix: the IP's own evidence grows with every version.
    const ipReports = versions
      .filter((v) => v > 0)
      .map((v) => seen.find((x) => x.version === v)!.dimensions.find((d) => d.code === 'ip')!.evidence?.reports ?? 0);
    expect(ipReports, `ip evidence per version ${versions}`).toEqual([...ipReports].sort((a, b) => a - b));
    expect(new Set(ipReports).size).toBe(ipReports.length);
  });
});
