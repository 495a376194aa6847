import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import {
  BAD_UTF8,
  FUZZ_REPORT,
  FUZZ_RUNS,
  anyJson,
  authHeaders,
  brokenJsonText,
  fuzzParameters,
  fuzzTimeout,
  keyHeaders,
  oddString,
  reportBody,
  reportFields,
} from './arbitraries.ts';
import { Tally, assertRestAnswer, closeClient, describeAnswer, send } from './client.ts';
import { CSV_COLUMNS } from '../../src/transport/operations/report-bulk.ts';

/**
 * POST /risk_api/report/bulk/ under hostile NDJSON and CSV bodies (FUZZ_RUNS cases), as rest.fuzz.test.ts does for
 * the single endpoints. Every answer is a bulk answer or a coded error, never a 5xx or a hang; a bulk answer holds
 * one result per report in line order, its totals add up and match the rows written (a refused body writes none);
 * no line fails as the server's fault; and a line refused as invalid is refused by `report` with the same details.
 */
const LINE_KEYS = ['bulk-fuzz-1', 'bulk-fuzz-2', 'bulk-fuzz-3'];
const withKey = fc
  .tuple(
    reportBody,
    fc.option(fc.oneof(fc.constantFrom(...LINE_KEYS), fc.constantFrom('', 'a b', 'x'.repeat(256), 'é')), {
      nil: undefined,
    }),
  )
  .map(([body, key]) => (key === undefined ? body : { ...body, idempotency_key: key }));

/** An NDJSON line: mostly a report (so validation and the write run deep), else anything. */
const ndjsonLine = fc.oneof(
  { weight: 10, arbitrary: withKey.map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: anyJson.map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: brokenJsonText },
  { weight: 1, arbitrary: fc.constantFrom('', '   ', '\t', '\r') },
  { weight: 1, arbitrary: oddString(3) },
);

const ndjsonBody = fc
  .tuple(fc.array(ndjsonLine, { minLength: 0, maxLength: 8 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
  .map(([lines, eol, last]) => lines.join(eol) + (last ? eol : ''));

/** A CSV cell as a client might write one: quoted, unquoted (broken when it holds a comma, quote or line break), or odd. */
const cellText = (value: unknown): string =>
  value === null || value === undefined
    ? ''
    : Array.isArray(value) && value.every((v) => typeof v === 'string')
      ? value.join(';')
      : typeof value === 'string'
        ? value
        : JSON.stringify(value);
const quoting = fc.constantFrom('always', 'needed', 'never');
const encodeCell = (text: string, how: string) =>
  how === 'always' || (how === 'needed' && /[",\r\n]/.test(text)) ? `"${text.replaceAll('"', '""')}"` : text;

const csvBody = fc
  .record({
    columns: fc.oneof(
      { weight: 8, arbitrary: fc.shuffledSubarray(CSV_COLUMNS, { minLength: 1 }) },
      {
        weight: 1,
        arbitrary: fc.array(fc.oneof(fc.constantFrom(...CSV_COLUMNS), oddString(1)), { minLength: 1, maxLength: 6 }),
      },
    ),
    rows: fc.array(fc.tuple(reportBody, fc.record(reportFields), fc.constantFrom(...LINE_KEYS), fc.nat(9)), {
      maxLength: 6,
    }),
    how: quoting,
    eol: fc.constantFrom('\n', '\r\n'),
    bom: fc.boolean(),
  })
  .map(({ columns, rows, how, eol, bom }) => {
    const lines = [columns.map((c) => encodeCell(c, how)).join(',')];
    for (const [body, all, key, drop] of rows) {
      const source: Record<string, unknown> = { ...all, ...body, idempotency_key: key };
      const cells = columns.map((c) => encodeCell(cellText(Object.hasOwn(source, c) ? source[c] : undefined), how));
      lines.push((drop === 0 ? cells.slice(1) : cells).join(','));
    }
    return (bom ? '\uFEFF' : '') + lines.join(eol) + eol;
  });

type Body = { type: string | null; bytes: Buffer };
const body: fc.Arbitrary<Body> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        ndjsonBody,
        fc.constantFrom('application/x-ndjson', 'application/x-ndjson; charset=utf-8', 'APPLICATION/X-NDJSON'),
      )
      .map(([text, type]) => ({ type, bytes: Buffer.from(text) })),
  },
  {
    weight: 6,
    arbitrary: fc
      .tuple(csvBody, fc.constantFrom('text/csv', 'text/csv; charset=utf-8', 'Text/CSV;header=present'))
      .map(([text, type]) => ({ type, bytes: Buffer.from(text) })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.oneof(ndjsonBody, csvBody),
        fc.constantFrom(null, '', 'application/json', 'text/plain', 'text/csvx', 'application/ndjson'),
      )
      .map(([text, type]) => ({ type, bytes: Buffer.from(text) })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(ndjsonBody, fc.constantFrom(...BAD_UTF8)).map(([text, bad]) => ({
      type: 'application/x-ndjson',
      bytes: Buffer.concat([Buffer.from(text.slice(0, 40)), bad, Buffer.from(text.slice(40))]),
    })),
  },
);

type Result = { line: number; status: string; id?: number; error?: string; details?: unknown };

describe(`REST fuzz of the bulk report (${backendName}), ${FUZZ_RUNS} cases`, () => {
  let s: TestServer;
  let secret: string;
  const tally = new Tally();
  const counts = async () => {
    const p = s.app.db.prisma;
    const [reports, links, idempotency, ratings] = await Promise.all([
      p.report.count(),
      p.reportLink.count(),
      p.idempotencyRecord.count(),
      p.rating.count(),
    ]);
    return { reports, links, idempotency, ratings };
  };

  beforeAll(async () => {
    s = await startTestServer();
    secret = (await s.createKey('fuzz-bulk', { tier: 'enterprise' })).secret;
  });
  afterAll(async () => {
    if (FUZZ_REPORT) console.log(tally.table(`REST bulk report fuzz, ${backendName}, FUZZ_RUNS=${FUZZ_RUNS}`));
    closeClient();
    await s?.close();
  });

  it(
    'POST /risk_api/report/bulk/: one result per report, totals matching the rows written, or a coded error writing nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(keyHeaders, oddString(3), body, async (key, odd, b) => {
          const headers: Record<string, string | string[]> = authHeaders(key, secret, odd);
          if (b.type !== null) headers['content-type'] = b.type;
          const context = JSON.stringify({ key, type: b.type, body: b.bytes.toString('latin1').slice(0, 500) });
          const before = await counts();
          const a = await send(s.url, 'POST', '/risk_api/report/bulk/', headers, b.bytes);
          tally.add('POST /risk_api/report/bulk/', a.status, assertRestAnswer(a, 'report_bulk', context));
          const after = await counts();
          expect(after.ratings, context).toBe(before.ratings);
          if (a.status !== 200) {
            expect(after, `bulk ${a.status} must write nothing: ${context} → ${describeAnswer(a)}`).toEqual(before);
            return;
          }
          const answer = a.json as {
            totals: { lines: number; created: number; replayed: number; errors: number };
            results: Result[];
          };
          const { results, totals } = answer;
          expect(results.length, context).toBe(totals.lines);
          expect(totals.created + totals.replayed + totals.errors, context).toBe(totals.lines);
          for (let i = 1; i < results.length; i++)
            expect(results[i]!.line, context).toBeGreaterThan(results[i - 1]!.line);
          expect(results.filter((r) => r.status === 'created').length).toBe(totals.created);
          expect(after.reports - before.reports, `rows written = lines created: ${context}`).toBe(totals.created);
          expect(after.idempotency - before.idempotency).toBeLessThanOrEqual(totals.created);
          for (const r of results) {
            if (r.status === 'error')
              expect(
                ['invalid_json', 'invalid_request', 'idempotency_key_reused'],
                `${context} → ${JSON.stringify(r)}`,
              ).toContain(r.error);
          }
          // A line `report` can read (an NDJSON object line without a key) is refused by `report` with the same details.
          if (!/ndjson/i.test(b.type ?? '')) return;
          const lines = b.bytes.toString('utf8').split('\n');
          for (const r of results.filter((x) => x.status === 'error' && x.error === 'invalid_request').slice(0, 2)) {
            const text = lines[r.line - 1]!.replace(/\r$/, '');
            if (Buffer.byteLength(text) > 60_000) continue; // over `report`'s MAX_BODY_BYTES: refused there before it is read
            let value: unknown;
            try {
              value = JSON.parse(text);
            } catch {
              continue;
            }
            if (typeof value !== 'object' || value === null || Array.isArray(value) || 'idempotency_key' in value)
              continue;
            const single = await send(
              s.url,
              'POST',
              '/risk_api/report/',
              { 'x-api-key': secret, 'content-type': 'application/json' },
              text,
            );
            expect(single.status, `${text} → ${describeAnswer(single)}`).toBe(400);
            expect((single.json as { details: unknown }).details, text).toEqual(r.details);
          }
        }),
        fuzzParameters(),
      );
    },
    fuzzTimeout(80),
  );
});
