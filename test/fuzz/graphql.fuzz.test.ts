import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { schema } from '../../src/transport/graphql/schema.ts';
import { snakeToCamelKeys } from '../../src/domain/validation.ts';
import {
  FUZZ_REPORT,
  FUZZ_RUNS,
  anyJson,
  authHeaders,
  brokenJsonText,
  contentType,
  fuzzParameters,
  fuzzTimeout,
  hugeText,
  ipCase,
  keyHeaders,
  mutatedObject,
  oddString,
  rateFields,
  reportBody,
} from './arbitraries.ts';
import { graphqlDocument } from './graphql-documents.ts';
import { Tally, assertGraphQLAnswer, closeClient, describeAnswer, send } from './client.ts';

/**
 * POST /graphql under hostile bodies, random documents over the real schema, and the write and
 * metered fields with fuzzed variables (FUZZ_RUNS cases each). Every answer is data or errors
 * that each carry extensions.code (never internal_error, never a 5xx, never a hang); a refused
 * score leaves the quota unchanged and a refused rate/report writes nothing.
 */
describe(`GraphQL fuzz (${backendName}), ${FUZZ_RUNS} cases per property`, () => {
  let s: TestServer;
  let secret: string;
  let quotaUsed: () => Promise<number>;
  const tally = new Tally();
  const counts = async () => {
    const p = s.app.db.prisma;
    const [ratings, reports, subjects, links] = await Promise.all([
      p.rating.count(),
      p.report.count(),
      p.subject.count(),
      p.reportLink.count(),
    ]);
    return { ratings, reports, subjects, links };
  };

  beforeAll(async () => {
    s = await startTestServer();
    secret = (await s.createKey('fuzz-graphql', { tier: 'enterprise' })).secret;
    const ws = await s.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: 'fuzz-graphql' } });
    const tier = s.app.services.tiers.get('enterprise');
    quotaUsed = async () => (await s.app.services.meter.peek(ws.id, tier)).usedToday;
    // Something to read back, so random reads reach real rows.
    await s.post(
      '/risk_api/report/',
      {
        kind: 'email',
        key: 'a@example.com',
        outcome_code: 'spam',
        related_subjects: [{ kind: 'ipaddress', key: '8.8.8.8' }],
      },
      { 'x-api-key': secret },
    );
    await s.post('/risk_api/rate/', { ip: '8.8.8.8', rating: -1 }, { 'x-api-key': secret });
  });
  afterAll(async () => {
    if (FUZZ_REPORT) console.log(tally.table(`GraphQL fuzz, ${backendName}, FUZZ_RUNS=${FUZZ_RUNS}`));
    closeClient();
    await s?.close();
  });

  const gql = (body: Buffer | string, key: Parameters<typeof authHeaders>[0], type: string | null, odd = '') => {
    const headers: Record<string, string | string[]> = { ...authHeaders(key, secret, odd), accept: 'application/json' };
    if (type !== null) headers['content-type'] = type;
    return send(s.url, 'POST', '/graphql', headers, body);
  };

  it(
    'answers any body with data or coded errors',
    async () => {
      const body = fc.oneof(
        {
          weight: 4,
          arbitrary: fc
            .record(
              {
                query: fc.oneof(
                  oddString(),
                  fc.constantFrom(
                    '{ viewer { apiKey { name } } }',
                    '{',
                    '}',
                    'query',
                    '{ __typename }',
                    'mutation { __typename }',
                  ),
                ),
                variables: anyJson,
                operationName: anyJson,
                extensions: anyJson,
              },
              { requiredKeys: ['query'] },
            )
            .map((v) => JSON.stringify(v)),
        },
        { weight: 2, arbitrary: anyJson.map((v) => JSON.stringify(v)) },
        { weight: 2, arbitrary: brokenJsonText },
        { weight: 1, arbitrary: hugeText() },
        {
          weight: 1,
          arbitrary: fc
            .array(fc.constant({ query: '{ __typename }' }), { minLength: 1, maxLength: 50 })
            .map((v) => JSON.stringify(v)),
        },
      );
      await fc.assert(
        fc.asyncProperty(keyHeaders, contentType, body, oddString(2), async (key, type, text, odd) => {
          const a = await gql(text, key, type, odd);
          tally.add(
            'POST /graphql (any body)',
            a.status,
            assertGraphQLAnswer(a, `key=${key} type=${type} body=${text.slice(0, 400)}`),
          );
        }),
        fuzzParameters(),
      );
    },
    fuzzTimeout(30),
  );

  it(
    'answers random documents over the schema with data or coded errors',
    async () => {
      await fc.assert(
        fc.asyncProperty(graphqlDocument(schema), async (d) => {
          const a = await gql(JSON.stringify({ query: d.query, variables: d.variables }), 'good', 'application/json');
          tally.add(
            'POST /graphql (documents)',
            a.status,
            assertGraphQLAnswer(
              a,
              `seed=${d.seed} ${JSON.stringify({ query: d.query, variables: d.variables }).slice(0, 1500)}`,
            ),
          );
        }),
        fuzzParameters(),
      );
    },
    fuzzTimeout(60),
  );

  it(
    'score(ip:): a refused call leaves the quota unchanged; the IP rules match REST',
    async () => {
      const ipValue = fc.oneof(
        { weight: 4, arbitrary: ipCase.map((c) => ({ value: c.text as unknown, c })) },
        { weight: 1, arbitrary: anyJson.map((value) => ({ value, c: null })) },
      );
      await fc.assert(
        fc.asyncProperty(ipValue, async ({ value, c }) => {
          const before = await quotaUsed();
          const body = JSON.stringify({
            query: 'query($ip: String!) { score(ip: $ip) { ip quota { usedToday } score { overallScore } } }',
            variables: { ip: value },
          });
          const a = await gql(body, 'good', 'application/json');
          tally.add('POST /graphql score', a.status, assertGraphQLAnswer(a, body));
          const after = await quotaUsed();
          const data = (a.json as any)?.data?.score;
          if (data) {
            expect(after, body).toBe(before + 1);
            expect(data.quota.usedToday).toBe(after);
          } else {
            expect(after, `a refused score must not count: ${body} → ${describeAnswer(a)}`).toBe(before);
          }
          if (c?.expect?.valid) expect(data?.ip, `${body} → ${describeAnswer(a)}`).toBe(c.expect.canonical);
          if (c?.expect && !c.expect.valid)
            expect((a.json as any).errors?.[0]?.extensions?.code, `${body} → ${describeAnswer(a)}`).toBe(
              'invalid_request',
            );
        }),
        fuzzParameters(),
      );
    },
    fuzzTimeout(40),
  );

  it(
    'rate and report mutations: written once, or nothing written',
    async () => {
      const input = fc.oneof(
        mutatedObject(rateFields).map((v) => ({ field: 'rate' as const, input: v as unknown })),
        reportBody.map((v) => ({ field: 'report' as const, input: snakeToCamelKeys(v) })),
        anyJson.map((v) => ({ field: 'rate' as const, input: v })),
      );
      await fc.assert(
        fc.asyncProperty(input, async ({ field, input }) => {
          const before = await counts();
          const query =
            field === 'rate'
              ? 'mutation($input: RateInput!) { rate(input: $input) { replayed rating { ip rating } } }'
              : 'mutation($input: ReportInput!) { report(input: $input) { replayed report { databaseId relatedSubjects { role } } } }';
          const body = JSON.stringify({ query, variables: { input } });
          const a = await gql(body, 'good', 'application/json');
          tally.add('POST /graphql rate/report', a.status, assertGraphQLAnswer(a, body.slice(0, 1500)));
          const after = await counts();
          const written = (a.json as any)?.data?.[field];
          if (!written)
            expect(
              after,
              `a refused ${field} must write nothing: ${body.slice(0, 1500)} → ${describeAnswer(a)}`,
            ).toEqual(before);
          else if (field === 'rate') expect(after.ratings).toBe(before.ratings + 1);
          else {
            expect(after.reports).toBe(before.reports + 1);
            expect(after.links - before.links).toBe(written.report.relatedSubjects.length);
          }
        }),
        fuzzParameters(),
      );
    },
    fuzzTimeout(60),
  );
});
