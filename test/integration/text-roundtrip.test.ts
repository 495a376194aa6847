import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';

/**
 * Free text comes back exactly as it was written, whatever it starts with. A leading U+FEFF (the
 * byte-order mark character) was dropped by PGlite's reader: the write was stored, then answered 500
 * (src/platform/db/pglite-text.ts).
 */
const TEXTS = [
  '\ufeffcard testing',
  '\ufeff\ufeff',
  '\ufeff',
  '\u200bzero width',
  '\u2028line separator',
  'e\u0301 \u{1f469}\u200d\u{1f4bb}',
  'ends with \ufeff',
];

describe(`free text round trip (${backendName})`, () => {
  let s: TestServer;
  let auth: Record<string, string>;
  beforeAll(async () => {
    s = await startTestServer();
    auth = { 'x-api-key': (await s.createKey('text-ws')).secret };
  });
  afterAll(() => s?.close());

  it('rate stores and answers a note exactly, with and without an Idempotency-Key', async () => {
    for (const [i, note] of TEXTS.entries()) {
      for (const idempotency of [{}, { 'idempotency-key': `text-${i}` }] as Array<Record<string, string>>) {
        const ip = `198.51.100.${i + 1}`;
        const r = await s.post('/risk_api/rate/', { ip, rating: -1, note }, { ...auth, ...idempotency });
        expect(r.status, `${JSON.stringify(note)} ${JSON.stringify(idempotency)}: ${JSON.stringify(r.body)}`).toBe(201);
      }
      const stored = await s.app.db.prisma.rating.findMany({
        where: { subject: { key: `198.51.100.${i + 1}` } },
        select: { note: true },
      });
      expect(
        stored.map((r) => r.note),
        JSON.stringify(note),
      ).toEqual([note, note]);
    }
  });

  it('report answers and stores title and summary exactly', async () => {
    for (const [i, text] of TEXTS.entries()) {
      const r = await s.post(
        '/risk_api/report/',
        { kind: 'ipaddress', key: `203.0.113.${i + 1}`, outcome_code: 'spam', title: text, summary: text },
        auth,
      );
      expect(r.status, `${JSON.stringify(text)}: ${JSON.stringify(r.body)}`).toBe(201);
      expect([r.body.report.title, r.body.report.summary]).toEqual([text, text]);
      const stored = await s.app.db.prisma.report.findUniqueOrThrow({
        where: { id: r.body.report.id },
        select: { title: true, summary: true },
      });
      expect(stored).toEqual({ title: text, summary: text });
    }
  });
});
