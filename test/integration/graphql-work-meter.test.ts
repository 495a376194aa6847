import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { QUERY_LIMITS } from '../../src/transport/graphql/limits.ts';

/**
 * The audit's requests (issue: GraphQL work bounded by what it really costs), as regression tests on the real
 * /graphql stack, over a Free workspace whose reports all name the same 100 subjects (written in SQL, as the
 * free bulk API would store them):
 * - `nodes(ids: <100 own subjects>) { relatedSubjects(limit: 1) }` was estimated at 201 points yet tallied
 *   every pair of subjects of every report for minutes: now the meter ends it with query_too_complex
 *   (limit maxWorkUnits), the cost limit's own refusal, and the same question on one subject is answered
 *   with exact counts.
 * - the same walk inside a `report` mutation's selection: the write is stored and answered, its selection
 *   refused in place by the same meter.
 */
const SUBJECTS = 100;
const REPORTS = 1_200;
const LINKS_PER_REPORT = 50;

describe(`the work meter on the audit's requests (${backendName})`, () => {
  let s: TestServer;
  let key: string;
  let subjectIds: number[];
  const nodeId = (type: string, id: number) => Buffer.from(`${type}:${id}`).toString('base64url');

  beforeAll(async () => {
    s = await startTestServer();
    key = (await s.createKey('meter')).secret;
    const prisma = s.app.db.prisma;
    const ws = await prisma.workspace.findUniqueOrThrow({ where: { name: 'meter' } });
    expect(ws.tier).toBe('free');
    await prisma.$executeRawUnsafe(
      `INSERT INTO "Subject" ("workspaceId", kind, key)
       SELECT $1, 'email', 'u' || g || '@example.com' FROM generate_series(1, ${SUBJECTS}) g`,
      ws.id,
    );
    subjectIds = (
      await prisma.subject.findMany({ where: { workspaceId: ws.id }, select: { id: true }, orderBy: { id: 'asc' } })
    ).map((r) => r.id);
    await prisma.$executeRawUnsafe(
      `INSERT INTO "Report" ("workspaceId", "subjectId", "eventType", "outcomeCode", severity, title, summary, details, tags,
                             status, "sharePolicy", namespace, "requestedVisibility", "effectiveVisibility", "policyNotice")
       SELECT $1, $2::int + g % ${SUBJECTS}, 'outcome', 'spam', 'low', 't', 's', 'd', '{}', '', 'clear_share', '',
              'private', 'private', ''
         FROM generate_series(1, ${REPORTS}) g`,
      ws.id,
      subjectIds[0],
    );
    // Each report links the 50 subjects after its own (wrapping round): every pair of the 100 shares many reports.
    await prisma.$executeRawUnsafe(
      `INSERT INTO "ReportLink" ("reportId", "subjectId", role, position)
       SELECT r.id, $2::int + (r."subjectId" - $2::int + 1 + p) % ${SUBJECTS}, 'email', p
         FROM "Report" r, generate_series(0, ${LINKS_PER_REPORT - 1}) p WHERE r."workspaceId" = $1`,
      ws.id,
      subjectIds[0],
    );
  });
  afterAll(() => s?.close());

  const ask = (query: string, variables?: unknown) =>
    s.post('/graphql', { query, variables }, { 'x-api-key': key, accept: 'application/json' });

  it("refuses the audit's 201-point related-subjects tally with the cost limit's code once its work passes the budget", async () => {
    const r = await ask(
      'query($ids: [ID!]!) { nodes(ids: $ids) { ... on Subject { relatedSubjects(limit: 1) { sharedReports } } } }',
      { ids: subjectIds.map((id) => nodeId('Subject', id)) },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors).toEqual([
      {
        message: expect.stringContaining('units of work'),
        extensions: expect.objectContaining({
          code: 'query_too_complex',
          limit: 'maxWorkUnits',
          maximum: QUERY_LIMITS.maxWorkUnits,
        }),
      },
    ]);
    expect(r.body.errors[0].extensions.actual).toBeGreaterThan(QUERY_LIMITS.maxWorkUnits);
  });

  it('answers the same question on one subject, with the exact number of reports each pair shares', async () => {
    const [first] = subjectIds;
    const r = await ask(
      `{ node(id: "${nodeId('Subject', first!)}") { ... on Subject { relatedSubjects(limit: 50) { sharedReports roles subject { databaseId } } } } }`,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const related = r.body.data.node.relatedSubjects as Array<{
      sharedReports: number;
      roles: string[];
      subject: { databaseId: number };
    }>;
    expect(related).toHaveLength(50);
    const expected = await s.app.db.prisma.$queryRawUnsafe<Array<{ other: number; shared: bigint }>>(
      `WITH named AS (SELECT id AS "reportId", "subjectId" FROM "Report" UNION SELECT "reportId", "subjectId" FROM "ReportLink")
       SELECT b."subjectId" AS other, count(DISTINCT a."reportId") AS shared
         FROM named a JOIN named b ON a."reportId" = b."reportId" AND b."subjectId" <> a."subjectId"
        WHERE a."subjectId" = $1 GROUP BY b."subjectId" ORDER BY shared DESC, other ASC LIMIT 50`,
      first,
    );
    expect(related.map((x) => [x.subject.databaseId, x.sharedReports])).toEqual(
      expected.map((e) => [Number(e.other), Number(e.shared)]),
    );
  });

  it('stores a report whose selection walks the same tally, refuses the selection, and gives the write back on a retry', async () => {
    const before = await s.app.db.prisma.report.count();
    const write = (selection: string) =>
      ask(
        `mutation($links: [RelatedSubjectInput!]) {
         report(input: { kind: email, key: "u1@example.com", outcomeCode: spam, relatedSubjects: $links }, idempotencyKey: "audit-1") {
           ${selection}
         }
       }`,
        {
          links: Array.from({ length: 50 }, (_, i) => ({ kind: 'email', key: `u${i + 2}@example.com`, role: 'email' })),
        },
      );
    const r = await write(`
replayed
           report {
             databaseId
             relatedSubjects { subject { relatedSubjects { subject { relatedSubjects(limit: 1) { sharedReports } } } } }
           }`);
    expect(await s.app.db.prisma.report.count()).toBe(before + 1);
    expect(r.body.errors?.length, JSON.stringify(r.body).slice(0, 2000)).toBeGreaterThan(0);
    for (const e of r.body.errors) {
      expect(e.extensions.code).toBe('query_too_complex');
      expect(e.message).toContain('completed and stored');
    }
    // The selection's refusal reached the non-null write result; the retry the refusal names reads it back.
    const again = await write('replayed report { databaseId }');
    expect(again.body.data.report.replayed, JSON.stringify(again.body)).toBe(true);
    expect(await s.app.db.prisma.report.count()).toBe(before + 1);
  });
});
