import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { usingPostgres } from '../helpers/backend.ts';
import { eventually, sleep } from '../helpers/eventually.ts';
import { copies, isCodedError, isReport, send, storedWrites, streamWrites, type Write } from './faults-helpers.ts';

/**
 * PostgreSQL connections dropped under the server's feet (pg_terminate_backend on every backend of its
 * database, as a failover or an administrator would) while rate and report writes stream in. Each write
 * is either acknowledged and stored whole, or answered with a coded error and not stored; a keyed retry
 * then stores it exactly once. The server recovers by itself.
 */
describe.runIf(usingPostgres)('faults: PostgreSQL connections dropped mid-load (postgresql)', () => {
  let s: TestServer;
  let key: string;
  let admin: pg.Client;
  let database: string;
  beforeAll(async () => {
    s = await startTestServer();
    key = (await s.createKey('pg-fault')).secret;
    database = new URL(s.env.env.DATABASE_URL!).pathname.slice(1);
    admin = new pg.Client({ connectionString: s.env.env.DATABASE_URL });
    await admin.connect();
  }, 600_000);
  afterAll(async () => {
    await admin?.end();
    await s?.close();
  });

  it('acknowledges only writes it stored whole, answers the others with a coded error, and recovers', async () => {
    const auth = { 'x-api-key': key };
    let stop = false;
    const load = streamWrites({ base: () => s.url, auth, run: 'pg', streams: 4, keyedEvery: 2, stop: () => stop });
    const terminated: number[] = [];
    let lastDrop = 0;
    try {
      expect(await eventually(async () => load.writes.filter((w) => w.status === 201).length >= 40)).toBe(true);
      for (let i = 0; i < 4; i++) {
        const { rows } = await admin.query<{ n: number }>(
          'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [database],
        );
        terminated.push(rows[0]!.n);
        lastDrop = performance.now();
        await sleep(250);
      }
      // Recovered by itself: writes sent after the last drop succeed again.
      const recovered = await eventually(
        async () => load.writes.filter((w) => w.sentAt > lastDrop && w.status === 201).length >= 40,
        300_000,
        100,
      );
      expect(
        recovered,
        `writes did not recover; last: ${JSON.stringify(load.writes.slice(-4).map((w) => [w.status, w.reply]))}`,
      ).toBe(true);
    } finally {
      stop = true;
      await load.finished;
    }
    const writes = load.writes;
    expect(
      terminated.reduce((a, b) => a + b, 0),
      'no server connection was terminated',
    ).toBeGreaterThan(0);

    // Every answer is a success or 503 database_unavailable (Retry-After); never a 500, a dropped connection or a non-JSON body.
    const acked = writes.filter((w) => w.status === 201);
    const failed = writes.filter((w) => w.status !== 201);
    const malformed = failed.filter(
      (w) =>
        w.status !== 503 || !isCodedError(w.reply) || w.reply.error !== 'database_unavailable' || w.retryAfter !== '1',
    );
    expect(
      malformed.map((w) => ({ status: w.status, reply: w.reply, retryAfter: w.retryAfter })),
      'failures other than 503 database_unavailable',
    ).toEqual([]);

    // A failed write that carried an Idempotency-Key is retried with it: stored exactly once afterwards.
    const retried = failed.filter((w) => w.idemKey).map((w) => ({ ...w }));
    for (const w of retried) await send(s.url, auth, w);
    expect(
      retried.filter((w) => w.status !== 201 && w.status !== 200).map((w) => [w.status, w.reply]),
      'keyed retries that failed',
    ).toEqual([]);
    const replayedRetries = retried.filter((w) => w.status === 200).length;

    const client = new pg.Client({ connectionString: s.env.env.DATABASE_URL });
    await client.connect();
    const stored = await storedWrites(async (sql) => (await client.query(sql)).rows).finally(() => client.end());

    const wrong = (list: Write[], expected: number) =>
      list
        .filter((w) => copies(stored, w) !== expected)
        .map((w) => ({ marker: w.marker, status: w.status, copies: copies(stored, w) }));
    expect(wrong(acked, 1), 'acknowledged writes not stored exactly once').toEqual([]);
    expect(
      acked
        .filter(isReport)
        .filter((w) => stored.reports.get(w.marker)![0]!.id !== w.reply.report.id)
        .map((w) => w.marker),
      'acknowledged report ids differ from the stored ones',
    ).toEqual([]);
    expect(wrong(retried, 1), 'keyed writes not stored exactly once after the retry').toEqual([]);
    expect(
      wrong(
        failed.filter((w) => !w.idemKey),
        0,
      ),
      'failed writes (no key) that were stored anyway',
    ).toEqual([]);
    const partial = [...stored.reports.entries()].flatMap(([title, list]) =>
      list.filter((r) => r.links !== 2).map((r) => ({ title, ...r })),
    );
    expect(partial, 'reports stored without both of their related-subject links').toEqual([]);

    const ready = await fetch(`${s.url}/readyz`);
    expect(ready.status, await ready.clone().text()).toBe(200);
    const codes = [...new Set(failed.map((w) => `${w.status} ${w.reply?.error}`))];
    console.log(
      `[faults-postgres] ${writes.length} writes while ${terminated.join('+')} backends were terminated in 4 drops: ` +
        `${acked.length} acknowledged and stored once, ${failed.length} answered ${codes.join(', ') || '-'}; ` +
        `${retried.length} keyed failures retried (${replayedRetries} replayed, ${retried.length - replayedRetries} written now), all stored once; ` +
        `${failed.length - retried.length} unkeyed failures, none stored; ${stored.reports.size} reports, none partial`,
    );
  }, 600_000);
});
