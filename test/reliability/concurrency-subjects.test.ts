import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainToASCII } from 'node:url';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { pooledClient, tally, type Answer } from './support.ts';

/**
 * Concurrent writes about the same NEW subjects — spelled differently (case, IDNA, trailing dot,
 * IPv4-mapped IPv6, AS notations), named as main or related subject in different orders, through
 * REST report, GraphQL report and rate — all succeed and converge on one subject node each.
 */
const ROUNDS = 4;
const WRITES_PER_ROUND = 48;

/** A small deterministic PRNG (mulberry32), so a failing order can be replayed. */
function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Ref = { kind: string; key: string };

/** The round's five new subjects: the spellings a client may send, and the key each is stored under. */
function subjectsOf(round: number) {
  const label = `bücher-r${round}-${Date.now().toString(36)}`;
  const asn = 64500 + round;
  const ip = `203.0.113.${10 + round}`;
  return {
    domain: {
      canonical: domainToASCII(`${label}.example`),
      spellings: [`${label}.Example`, `${label.toUpperCase()}.EXAMPLE.`, domainToASCII(`${label}.example`)],
    },
    email: {
      canonical: `mule@${domainToASCII(`shop-${label}.example`)}`,
      spellings: [`mule@Shop-${label}.Example`, `mule@${domainToASCII(`shop-${label}.example`).toUpperCase()}`],
    },
    ipaddress: { canonical: ip, spellings: [ip, `::ffff:${ip}`, `::FFFF:${ip}`] },
    asn: { canonical: String(asn), spellings: [`AS${asn}`, String(asn), `as ${asn}`] },
    cidr: {
      canonical: `198.51.${100 + round}.0/24`,
      spellings: [`198.51.${100 + round}.7/24`, `198.51.${100 + round}.0/24`],
    },
  };
}

describe(`concurrent writes about the same new subjects (${backendName})`, () => {
  let s: TestServer;
  let secret: string;
  beforeAll(async () => {
    s = await startTestServer();
    secret = (await s.createKey('subjects-race')).secret;
  });
  afterAll(() => s?.close());

  it('still numbers new subjects in request order, main subject first (the lock order is not the id order)', async () => {
    const tag = Date.now().toString(36);
    const r = await s.post(
      '/risk_api/report/',
      {
        kind: 'url',
        key: `https://zz-${tag}.example/x`,
        outcome_code: 'spam',
        related_subjects: [
          { kind: 'email', key: `b@${tag}.example` },
          { kind: 'asn', key: '64499' },
          { kind: 'domain', key: `aa-${tag}.example` },
        ],
      },
      { 'x-api-key': (await s.createKey('subjects-order')).secret },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const keys = [`https://zz-${tag}.example/x`, `b@${tag}.example`, '64499', `aa-${tag}.example`];
    const rows = await s.app.db.prisma.subject.findMany({ where: { key: { in: keys } }, orderBy: { id: 'asc' } });
    expect(rows.map((x) => x.key)).toEqual(keys);
  });

  it(`never creates a duplicate subject node (${ROUNDS} rounds of ${WRITES_PER_ROUND} concurrent writes)`, async () => {
    const client = pooledClient(32);
    const headers = { 'x-api-key': secret };
    const workspace = await s.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: 'subjects-race' } });
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const subjects = subjectsOf(round);
        const random = rng(round + 1);
        const pick = (kind: keyof typeof subjects): Ref => {
          const spellings = subjects[kind].spellings;
          return { kind, key: spellings[Math.floor(random() * spellings.length)]! };
        };
        const shuffled = <T>(items: T[]) =>
          items
            .map((v) => [random(), v] as const)
            .sort((a, b) => a[0] - b[0])
            .map(([, v]) => v);
        const expected = { ratings: 0, ipReports: 0, ipMentions: 0 };

        const writes: Array<() => Promise<{ what: string; answer: Answer; ok: boolean }>> = [];
        for (let i = 0; i < WRITES_PER_ROUND; i++) {
          const shape = i % 4;
          if (shape === 0 || shape === 1) {
            const main = pick(shape === 0 ? 'domain' : 'email');
            const related = shuffled(
              (shape === 0
                ? (['ipaddress', 'email', 'asn', 'cidr'] as const)
                : (['domain', 'ipaddress', 'asn'] as const)
              ).map(pick),
            );
            expected.ipMentions++;
            writes.push(async () => {
              const answer = await client.post(
                s.url,
                '/risk_api/report/',
                {
                  ...main,
                  outcome_code: 'fraud_watch',
                  related_subjects: related.map((r) => ({ ...r, role: 'linked' })),
                },
                headers,
              );
              return { what: 'rest report', answer, ok: answer.status === 201 };
            });
          } else if (shape === 2) {
            const main = pick('ipaddress');
            const related = shuffled((['domain', 'cidr', 'email'] as const).map(pick));
            expected.ipReports++;
            writes.push(async () => {
              const answer = await client.post(
                s.url,
                '/graphql',
                {
                  query: 'mutation($input: ReportInput!) { report(input: $input) { report { subject { id key } } } }',
                  variables: { input: { ...main, outcomeCode: 'spam', relatedSubjects: related } },
                },
                headers,
              );
              return { what: 'graphql report', answer, ok: answer.status === 200 && !answer.body.errors };
            });
          } else {
            const ip = pick('ipaddress').key;
            expected.ratings++;
            writes.push(async () => {
              const answer = await client.post(s.url, '/risk_api/rate/', { ip, rating: -1 }, headers);
              return { what: 'rest rate', answer, ok: answer.status === 201 };
            });
          }
        }

        const results = await Promise.all(writes.map((w) => w()));
        const failed = results.filter((r) => !r.ok);
        const serverErrors = s.logs
          .filter((l) => l.includes('"level":"error"'))
          .map((l) => JSON.parse(l).err?.message)
          .slice(0, 3);
        expect(
          failed.map((f) => `${f.what}: ${f.answer.status} ${f.answer.text.slice(0, 300)}`),
          `round ${round}: ${JSON.stringify(tally(results, (r) => `${r.what} ${r.answer.status}`))}; server said: ${JSON.stringify(serverErrors)}`,
        ).toEqual([]);

        // One node per subject, stored under its canonical key.
        const stored = await s.app.db.prisma.subject.findMany({
          where: {
            workspaceId: workspace.id,
            OR: Object.entries(subjects).map(([kind, v]) => ({ kind, key: v.canonical })),
          },
          orderBy: { id: 'asc' },
        });
        expect(stored.map((x) => `${x.kind}:${x.key}`).sort(), `round ${round}`).toEqual(
          Object.entries(subjects)
            .map(([kind, v]) => `${kind}:${v.canonical}`)
            .sort(),
        );
        // Every GraphQL answer named that same node.
        const ipNode = stored.find((x) => x.kind === 'ipaddress')!;
        for (const r of results.filter((x) => x.what === 'graphql report')) {
          expect(r.answer.body.data.report.report.subject.key).toBe(ipNode.key);
        }
        // And everything written hangs off it: all ratings, reports and mentions of the IP are on the one node.
        const graph = await client.post(
          s.url,
          '/graphql',
          {
            query: `{ subject(kind: ipaddress, key: "::ffff:${ipNode.key}") { databaseId ratings(first: 1) { totalCount } reports(first: 1) { totalCount } mentions(first: 1) { totalCount } } }`,
          },
          headers,
        );
        expect(graph.body.data, graph.text).toEqual({
          subject: {
            databaseId: ipNode.id,
            ratings: { totalCount: expected.ratings },
            reports: { totalCount: expected.ipReports },
            mentions: { totalCount: expected.ipMentions },
          },
        });
      }
      // Nothing else was created along the way: exactly five subjects a round.
      expect(await s.app.db.prisma.subject.count({ where: { workspaceId: workspace.id } })).toBe(ROUNDS * 5);
    } finally {
      client.close();
    }
  });
});
