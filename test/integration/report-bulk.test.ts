import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { BULK_CHUNK_SIZE } from '../../src/domain/memory/report-bulk.ts';
import { maintainedMemory, recountMemory } from '../helpers/memory-recount.ts';
import { backendName, usingPostgres } from '../helpers/backend.ts';

/**
 * POST /risk_api/report/bulk/: NDJSON and CSV bodies, each line judged as `report` judges a body, the valid ones
 * stored chunk by chunk; per-line idempotency keys; the size bounds; a failed chunk leaving nothing; workspaces apart.
 * Every answer is checked against openapi.json by the server helper.
 */
const NDJSON = { 'content-type': 'application/x-ndjson' };
const CSV = { 'content-type': 'text/csv' };
const ndjson = (lines: unknown[]) =>
  `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`;
/** IPv4 addresses 10.x.y.z, distinct for i < 2^24. */
const ipOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

describe(`bulk report (${backendName})`, () => {
  let s: TestServer;
  let auth: Record<string, string>;
  let other: Record<string, string>;
  let workspaceId: number;
  const bulk = (body: string, headers: Record<string, string> = NDJSON, key = auth) =>
    s.post('/risk_api/report/bulk/', body, { ...key, ...headers });
  const reportsIn = (namespace: string, ws = workspaceId) =>
    s.app.db.prisma.report.count({ where: { workspaceId: ws, namespace } });

  beforeAll(async () => {
    s = await startTestServer();
    auth = { 'x-api-key': (await s.createKey('bulk-ws', { tier: 'developer' })).secret };
    other = { 'x-api-key': (await s.createKey('bulk-other', { tier: 'developer' })).secret };
    workspaceId = (await s.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: 'bulk-ws' } })).id;
  });
  afterAll(() => s?.close());

  it('stores 10,000 NDJSON lines but the 1% that are invalid, naming each bad line exactly', async () => {
    const bad = new Set<number>();
    const lines = Array.from({ length: 10_000 }, (_, i) => {
      const line = i + 1;
      if (line % 100 === 37) {
        bad.add(line);
        // three kinds of bad line: not JSON, an invalid field, an unknown field
        return line % 300 === 37
          ? '{"kind": "ipaddress",'
          : {
              kind: 'ipaddress',
              key: ipOf(i),
              outcome_code: line % 300 === 137 ? 'nope' : 'spam',
              ...(line % 300 === 237 ? { colour: 'red' } : {}),
              namespace: 'bulk10k',
            };
      }
      return {
        kind: 'ipaddress',
        key: ipOf(i),
        outcome_code: 'spam',
        severity: 'high',
        tags: ['bulk'],
        namespace: 'bulk10k',
        related_subjects: line % 10 === 0 ? [{ kind: 'domain', key: `d${line}.example`, role: 'domain' }] : [],
      };
    });
    const r = await bulk(ndjson(lines));
    expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(200);
    expect(r.body).toMatchObject({
      ok: true,
      endpoint: 'report_bulk',
      quota: { counted: false, reason: 'free_endpoint' },
      chunk_size: usingPostgres ? BULK_CHUNK_SIZE.postgres : BULK_CHUNK_SIZE.embedded,
    });
    expect(r.body.totals).toEqual({ lines: 10_000, created: 9_900, replayed: 0, errors: 100 });
    const results = r.body.results as Array<{
      line: number;
      status: string;
      id?: number;
      error?: string;
      details?: Array<{ field: string }>;
    }>;
    expect(results.map((x) => x.line)).toEqual(lines.map((_, i) => i + 1));
    expect(results.filter((x) => x.status === 'error').map((x) => x.line)).toEqual([...bad]);
    expect(results.find((x) => x.line === 37)).toMatchObject({
      error: 'invalid_json',
      message: 'This line is not valid JSON.',
      details: [],
    });
    expect(results.find((x) => x.line === 137)).toMatchObject({
      error: 'invalid_request',
      details: [{ field: 'outcome_code', message: expect.stringMatching(/^must be one of: /) }],
    });
    expect(results.find((x) => x.line === 237)).toMatchObject({
      error: 'invalid_request',
      details: [{ field: 'colour', message: 'is not a known field' }],
    });
    // the same body sent to `report` is refused with the same details
    const single = await s.post('/risk_api/report/', lines[136], auth);
    expect([single.status, single.body.details]).toEqual([400, results[136]!.details]);

    expect(await reportsIn('bulk10k')).toBe(9_900);
    const exported = await fetch(`${s.url}/risk_api/export/?namespace=bulk10k`, { headers: auth });
    const records = (await exported.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: number; subject: { key: string }; related_subjects: unknown[] });
    expect(records).toHaveLength(9_900);
    const created = new Map(results.filter((x) => x.status === 'created').map((x) => [x.id!, x.line]));
    for (const rec of records) expect(rec.subject.key).toBe(ipOf(created.get(rec.id)! - 1));
    expect(records.find((rec) => rec.subject.key === ipOf(9))!.related_subjects).toEqual([
      { kind: 'domain', key: 'd10.example', role: 'domain' },
    ]);

    // the workspace memory is current, as after single reports: the next score shows the report
    const scored = await s.post('/risk_api/score/', { ip: ipOf(41) }, auth);
    expect(scored.body.workspace_memory.reports).toBe(1);
    expect((await s.post('/risk_api/score/', { ip: ipOf(36) }, auth)).body.workspace_memory.reports).toBe(0); // line 37: refused
  });

  it('reads CSV: any column order, empty cells as defaults, tags by ";", related subjects as JSON, quoted line breaks', async () => {
    const csv = [
      'namespace,kind,key,outcome_code,tags,related_subjects,details,idempotency_key',
      'csv,ipaddress,198.51.100.20,fraud_watch,carding; Card-Testing,"[{""kind"":""ipaddress"",""key"":""2001:DB8::7"",""role"":""source_ip""}]","two',
      'lines",csv-1',
      '',
      'csv,ipaddress,198.51.100.21,spam,,,,',
      'csv,ipaddress,not-an-ip,spam,,,,',
      'csv,ipaddress,198.51.100.22,spam,,[oops,,',
      'csv,ipaddress,198.51.100.23,spam',
      'csv,ipaddress,"198.51.100.24"x,spam,,,,',
      'csv,email,Mallory@EXAMPLE.com,chargeback,,,,',
    ].join('\r\n');
    const r = await bulk(csv, CSV);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.totals, JSON.stringify(r.body.results)).toEqual({ lines: 7, created: 3, replayed: 0, errors: 4 });
    // each line number is the one the record starts on: the first spans lines 2-3, line 4 is blank
    expect(r.body.results.map((x: { line: number; status: string }) => [x.line, x.status])).toEqual([
      [2, 'created'],
      [5, 'created'],
      [6, 'error'],
      [7, 'error'],
      [8, 'error'],
      [9, 'error'],
      [10, 'created'],
    ]);
    const [first, , ip, json, cells, quote] = r.body.results;
    expect(ip.details).toEqual([{ field: 'key', message: expect.stringContaining('(kind ipaddress)') }]);
    expect(json.details).toEqual([
      { field: 'related_subjects', message: 'must be a JSON array of objects with kind, key and role' },
    ]);
    expect(cells.message).toBe('This line has 4 cells where the header names 8 columns.');
    expect(quote.error).toBe('invalid_request');
    const stored = await s.app.db.prisma.report.findUniqueOrThrow({
      where: { id: first.id },
      include: { links: { include: { subject: true } } },
    });
    expect(stored).toMatchObject({
      details: 'two\nlines',
      tags: ['carding', 'card-testing'],
      severity: 'medium',
      namespace: 'csv',
    });
    expect(stored.links.map((l) => [l.subject.key, l.role])).toEqual([['2001:db8::7', 'source_ip']]);

    const header = await bulk('kind,key,outcome_code,colour,kind\nipaddress,9.9.9.9,spam,red,ipaddress\n', CSV);
    expect([header.status, header.body.error, header.body.details]).toEqual([
      400,
      'invalid_request',
      [
        { field: '(header)', message: 'names an unknown column "colour"' },
        { field: '(header)', message: 'names the column "kind" more than once' },
      ],
    ]);
    expect((await bulk('kind,key,outcome_code\r\n\r\n', CSV)).status).toBe(400); // no report
  });

  it('replays each line by its idempotency key, refuses a key reused with another report, and shares keys with `report`', async () => {
    const lines = [0, 1, 2].map((i) => ({
      kind: 'ipaddress',
      key: ipOf(100_000 + i),
      outcome_code: 'spam',
      namespace: 'replay',
      idempotency_key: `replay-${i}`,
    }));
    const first = await bulk(ndjson([...lines, { ...lines[0], idempotency_key: undefined }]));
    expect(first.body.totals).toEqual({ lines: 4, created: 4, replayed: 0, errors: 0 });
    const ids = first.body.results.map((x: { id: number }) => x.id);

    const again = await bulk(
      ndjson([
        lines[0],
        { ...lines[1], severity: 'critical' },
        lines[2],
        { ...lines[2] },
        { ...lines[0], idempotency_key: 'replay-new' },
        { ...lines[0], outcome_code: 'legitimate', idempotency_key: 'replay-new' },
      ]),
    );
    expect(again.body.results).toEqual([
      { line: 1, status: 'replayed', id: ids[0] },
      {
        line: 2,
        status: 'error',
        error: 'idempotency_key_reused',
        message: expect.stringContaining('idempotency_key was already used'),
        details: [],
      },
      { line: 3, status: 'replayed', id: ids[2] },
      { line: 4, status: 'replayed', id: ids[2] },
      { line: 5, status: 'created', id: expect.any(Number) },
      { line: 6, status: 'error', error: 'idempotency_key_reused', message: expect.any(String), details: [] },
    ]);
    expect(await reportsIn('replay')).toBe(5);

    // `report` with a bulk line's key and the same report replays it; with another report it is refused
    const { idempotency_key: key, ...body } = lines[1]!;
    const replayed = await s.post('/risk_api/report/', body, { ...auth, 'idempotency-key': key });
    expect([replayed.status, replayed.body.report.id]).toEqual([200, ids[1]]);
    expect(
      (await s.post('/risk_api/report/', { ...body, severity: 'low' }, { ...auth, 'idempotency-key': key })).status,
    ).toBe(409);
    // and a bulk line replays a key `report` wrote first
    const single = await s.post(
      '/risk_api/report/',
      { ...body, key: '192.0.2.99' },
      { ...auth, 'idempotency-key': 'replay-single' },
    );
    const line = await bulk(ndjson([{ ...body, key: '192.0.2.99', idempotency_key: 'replay-single' }]));
    expect(line.body.results).toEqual([{ line: 1, status: 'replayed', id: single.body.report.id }]);

    const header = await bulk(ndjson(lines), { ...NDJSON, 'idempotency-key': 'whole-body' });
    expect([header.status, header.body.details[0].field]).toEqual([400, 'Idempotency-Key']);
    const badKey = await bulk(ndjson([{ ...lines[0], idempotency_key: 'has space' }]));
    expect(badKey.body.results[0].details).toEqual([
      { field: 'idempotency_key', message: 'must be 1-255 printable ASCII characters' },
    ]);
  });

  it('refuses a body over 5 MB or 10,000 lines whole (413 naming the bound), writing nothing', async () => {
    const before = await s.app.db.prisma.report.count();
    const line = JSON.stringify({ kind: 'ipaddress', key: '9.9.9.9', outcome_code: 'spam', namespace: 'toolarge' });
    const tooMany = await bulk(ndjson(Array.from({ length: 10_001 }, () => line)));
    expect([tooMany.status, tooMany.body.error, tooMany.body.message]).toEqual([
      413,
      'payload_too_large',
      expect.stringContaining('more than 10000 reports'),
    ]);
    const csvTooMany = await bulk(
      ['kind,key,outcome_code', ...Array.from({ length: 10_001 }, () => 'ipaddress,9.9.9.9,spam')].join('\n'),
      CSV,
    );
    expect([csvTooMany.status, csvTooMany.body.message]).toEqual([413, expect.stringContaining('10000')]);
    const padded = JSON.stringify({
      kind: 'ipaddress',
      key: '9.9.9.9',
      outcome_code: 'spam',
      details: 'x'.repeat(9_000),
    });
    const tooBig = await bulk(ndjson(Array.from({ length: 600 }, () => padded)));
    expect([tooBig.status, tooBig.body.message]).toEqual([
      413,
      'The request body is larger than the limit of 5242880 bytes.',
    ]);
    expect(await s.app.db.prisma.report.count()).toBe(before);
    expect((await bulk('{}', { 'content-type': 'application/json' })).status).toBe(415);
  });

  it('leaves nothing of a chunk whose transaction failed, answers its lines with the failure, and stores the others', async () => {
    const prisma = s.app.db.prisma;
    const chunk = s.app.services.bulkChunkSize;
    const lines = Array.from({ length: chunk * 3 }, (_, i) => ({
      kind: 'ipaddress',
      key: ipOf(200_000 + i),
      outcome_code: 'spam',
      namespace: 'crash',
      idempotency_key: `crash-${i}`,
      // shared by lines of every chunk: their memory must count exactly the lines stored
      related_subjects: [{ kind: 'domain', key: `crash${i % 7}.example`, role: 'domain' }],
    }));
    const memoryMatchesHistory = async () => {
      const ids = (await prisma.subject.findMany({ where: { workspaceId }, select: { id: true } })).map((x) => x.id);
      expect(await maintainedMemory(prisma, ids)).toEqual(await recountMemory(prisma, ids));
    };
    const original = prisma.$transaction;
    let calls = 0;
    // The second chunk's transaction fails after its statements ran (its reports, subjects, memory and keys written, uncommitted).
    (prisma as { $transaction: unknown }).$transaction = (fn: (tx: unknown) => Promise<unknown>, options: unknown) =>
      (original as (f: unknown, o: unknown) => Promise<unknown>).call(
        prisma,
        async (tx: unknown) => {
          const result = await fn(tx);
          if (++calls === 2) throw new Error('injected failure after the chunk was written');
          return result;
        },
        options,
      );
    let r;
    try {
      r = await bulk(ndjson(lines));
    } finally {
      (prisma as { $transaction: unknown }).$transaction = original;
    }
    expect(r.body.totals).toEqual({ lines: 3 * chunk, created: 2 * chunk, replayed: 0, errors: chunk });
    const failedLines = r.body.results.filter((x: { status: string }) => x.status === 'error');
    expect(failedLines.map((x: { line: number }) => x.line)).toEqual(
      lines.slice(chunk, 2 * chunk).map((_, i) => chunk + 1 + i),
    );
    expect(failedLines[0]).toMatchObject({
      error: 'internal_error',
      message: expect.stringContaining('Quote request id'),
    });
    const middle = lines.slice(chunk, 2 * chunk);
    expect(await prisma.report.count({ where: { namespace: 'crash' } })).toBe(2 * chunk);
    expect(await prisma.subject.count({ where: { key: { in: middle.map((l) => l.key) } } })).toBe(0);
    expect(
      (
        await prisma.subjectMemory.findFirstOrThrow({
          where: { subject: { workspaceId, kind: 'domain', key: 'crash0.example' } },
        })
      ).reports,
    ).toBe(
      lines.filter((l, i) => (i < chunk || i >= 2 * chunk) && l.related_subjects[0]!.key === 'crash0.example').length,
    );
    await memoryMatchesHistory();
    expect(await prisma.idempotencyRecord.count({ where: { key: { in: middle.map((l) => l.idempotency_key) } } })).toBe(
      0,
    );
    expect((await s.post('/risk_api/score/', { ip: middle[0]!.key }, auth)).body.workspace_memory.reports).toBe(0);

    // the client resends the whole body: the stored lines replay, the failed chunk is stored now, once
    const retry = await bulk(ndjson(lines));
    expect(retry.body.totals).toEqual({ lines: 3 * chunk, created: chunk, replayed: 2 * chunk, errors: 0 });
    expect(await prisma.report.count({ where: { namespace: 'crash' } })).toBe(3 * chunk);
    expect((await s.post('/risk_api/score/', { ip: middle[0]!.key }, auth)).body.workspace_memory.reports).toBe(1);
    await memoryMatchesHistory();
  });

  it("GraphQL reportBulk: one result per report with its key, `report`'s details, and a cost counted per report", async () => {
    const gql = async (query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const res = await fetch(`${s.url}/graphql`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query, variables }),
      });
      return (await res.json()) as {
        data?: { reportBulk: Array<Record<string, unknown>> };
        errors?: Array<{ message: string; extensions: Record<string, unknown> }>;
      };
    };
    const mutation = `mutation Bulk($reports: [ReportInput!]!, $keys: [String]) {
      reportBulk(reports: $reports, idempotencyKeys: $keys) { line status databaseId error message details { field message } } }`;
    const reports = [
      { kind: 'ipaddress', key: '198.51.100.70', outcomeCode: 'spam', namespace: 'gql' },
      { kind: 'ipaddress', key: '198.51.100.999', outcomeCode: 'spam', namespace: 'gql' },
      {
        kind: 'email',
        key: 'Mule@EXAMPLE.com',
        outcomeCode: 'chargeback',
        namespace: 'gql',
        relatedSubjects: [{ kind: 'ipaddress', key: '198.51.100.70', role: 'source_ip' }],
      },
    ];
    const first = await gql(mutation, { reports, keys: ['gql-1', null, 'bad key'] });
    expect(first.errors).toBeUndefined();
    const single = await gql('mutation($r: ReportInput!) { report(input: $r) { replayed } }', { r: reports[1] });
    expect(first.data!.reportBulk).toEqual([
      { line: 1, status: 'created', databaseId: expect.any(Number), error: null, message: null, details: [] },
      {
        line: 2,
        status: 'error',
        databaseId: null,
        error: 'invalid_request',
        message: expect.any(String),
        details: single.errors![0]!.extensions.details,
      },
      {
        line: 3,
        status: 'error',
        databaseId: null,
        error: 'invalid_request',
        message: expect.any(String),
        details: [{ field: 'idempotencyKeys[2]', message: 'must be 1-255 printable ASCII characters' }],
      },
    ]);
    const again = await gql(mutation, {
      reports: [reports[0], { ...reports[0], severity: 'critical' }],
      keys: ['gql-1', 'gql-1'],
    });
    expect(again.data!.reportBulk.map((r) => [r.status, r.databaseId ?? r.error])).toEqual([
      ['replayed', first.data!.reportBulk[0]!.databaseId],
      ['error', 'idempotency_key_reused'],
    ]);
    expect(await reportsIn('gql')).toBe(1);
    expect((await s.post('/risk_api/score/', { ip: '198.51.100.70' }, auth)).body.workspace_memory.reports).toBe(1);

    // cost: each report is an item of the answer; details are the expensive part (bodies stay under MAX_BODY_BYTES, 64 KB)
    const many = Array.from({ length: 500 }, (_, i) => ({
      kind: 'ipaddress',
      key: ipOf(300_000 + i),
      outcomeCode: 'spam',
      namespace: 'gql-many',
    }));
    const costly = await gql(mutation, { reports: many });
    expect(costly.errors?.[0]?.extensions).toMatchObject({ code: 'query_too_complex', limit: 'maxCost' });
    expect(await reportsIn('gql-many')).toBe(0);
    const lean = await gql('mutation($reports: [ReportInput!]!) { reportBulk(reports: $reports) { line status } }', {
      reports: many,
    });
    expect(lean.data!.reportBulk.filter((r) => r.status === 'created')).toHaveLength(500);
    const tiny = { kind: 'ipaddress', key: '1.1.1.1', outcomeCode: 'spam' };
    const tooMany = await gql('mutation($reports: [ReportInput!]!) { reportBulk(reports: $reports) { line } }', {
      reports: Array.from({ length: 1_001 }, () => tiny),
    });
    expect(tooMany.errors?.[0]?.extensions).toMatchObject({ code: 'query_too_complex', limit: 'maxBulkReports' });
    const header = await gql(mutation, { reports: [reports[0]] }, { 'idempotency-key': 'whole' });
    expect(header.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_request' });
  });

  it('keeps workspaces apart: another workspace sees none of the reports and has keys of its own', async () => {
    const line = {
      kind: 'ipaddress',
      key: '198.51.100.99',
      outcome_code: 'spam',
      namespace: 'isolated',
      idempotency_key: 'iso-1',
    };
    const mine = await bulk(ndjson([line]));
    expect(mine.body.results[0].status).toBe('created');
    const theirs = await bulk(ndjson([{ ...line, outcome_code: 'legitimate' }]), NDJSON, other);
    expect(theirs.body.results[0]).toMatchObject({ status: 'created' }); // not key-reused: the key is per workspace
    const otherId = (await s.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: 'bulk-other' } })).id;
    expect([await reportsIn('isolated'), await reportsIn('isolated', otherId)]).toEqual([1, 1]);
    const exported = await (await fetch(`${s.url}/risk_api/export/?namespace=bulk10k`, { headers: other })).text();
    expect(exported).toBe('');
    expect((await s.post('/risk_api/score/', { ip: '198.51.100.99' }, other)).body.workspace_memory.reports).toBe(1);
    expect((await s.post('/risk_api/score/', { ip: ipOf(41) }, other)).body.workspace_memory.reports).toBe(0);
  });
});
