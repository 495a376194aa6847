import { afterAll, describe, expect, it } from 'vitest';
import { backendName, freshEnvironment, type TestEnv } from '../helpers/backend.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { createApiKey } from '../../src/domain/access/keys.ts';
import { resolvePepper } from '../../src/domain/access/pepper.ts';
import { eventually } from '../helpers/eventually.ts';
import {
  copies,
  isReport,
  send,
  startServerProcess,
  storedWrites,
  streamWrites,
  type ServerProcess,
  type Write,
} from './faults-helpers.ts';

/**
 * The server process killed with SIGKILL (no shutdown code runs) while clients stream rate and report
 * writes, half of them with an Idempotency-Key; then started again on the same data. Every write a
 * client saw acknowledged must be stored exactly once; a retry with its key of any write — acknowledged
 * or cut off by the kill — must never store it a second time. Runs on the embedded default (PGlite
 * files in DATA_DIR) and on PostgreSQL.
 */
describe(`faults: server killed with SIGKILL mid-load, restarted on the same data (${backendName})`, () => {
  let env: TestEnv;
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    await env?.cleanup();
  });

  it('keeps every acknowledged write exactly once, and a keyed retry never duplicates', async () => {
    env = await freshEnvironment();
    const setup = await openDatabase({ databaseUrl: env.env.DATABASE_URL, dataDir: env.dataDir });
    await setup.migrate();
    const { secret } = await createApiKey(setup.prisma, resolvePepper(undefined, env.dataDir), {
      workspace: 'sigkill',
      name: 'writer',
    });
    await setup.close(); // the embedded database has one owner at a time: the server, from here on
    const auth = { 'x-api-key': secret };

    const first = await startServerProcess(env.env);
    servers.push(first);
    let stop = false;
    const load = streamWrites({
      base: () => first.url,
      auth,
      run: 'kill',
      streams: 6,
      keyedEvery: 2,
      stop: () => stop,
    });
    try {
      const enough = await eventually(async () => load.writes.filter((w) => w.status === 201).length >= 150);
      expect(
        enough,
        `only ${load.writes.filter((w) => w.status === 201).length} writes acknowledged; server log:\n${first.logs.slice(-10).join('\n')}`,
      ).toBe(true);
      first.child.kill('SIGKILL'); // while the six streams each have a write in flight
      expect(await first.exited).toBe('SIGKILL');
    } finally {
      stop = true;
      await load.finished;
    }
    const writes = load.writes;
    const acked = writes.filter((w) => w.status === 201);
    const cut = writes.filter((w) => typeof w.status === 'string'); // no answer: connection reset or refused
    expect(
      writes.filter((w) => w.status !== 201 && typeof w.status !== 'string').map((w) => [w.status, w.reply]),
      'answers other than 201 before the kill',
    ).toEqual([]);

    const second = await startServerProcess(env.env); // same DATA_DIR / DATABASE_URL; the dead owner's lock and socket are stale
    servers.push(second);

    // Retry with its key every keyed write: those acknowledged replay their first answer (200, same id) and
    // store nothing; those cut off by the kill are stored now (201) or, if they had committed, replay (200).
    const retryAcked = acked.filter((w) => w.idemKey).map((w) => ({ ...w }));
    const retryCut = cut.filter((w) => w.idemKey).map((w) => ({ ...w }));
    for (const w of [...retryAcked, ...retryCut]) await send(second.url, auth, w);
    const replayMismatch = retryAcked.filter(
      (w, i) =>
        w.status !== 200 ||
        w.reply?.replayed !== true ||
        (isReport(w)
          ? w.reply.report.id !== acked.filter((a) => a.idemKey)[i]!.reply.report.id
          : w.reply.report.created_at !== acked.filter((a) => a.idemKey)[i]!.reply.report.created_at),
    );
    expect(
      replayMismatch.map((w) => ({ marker: w.marker, status: w.status, reply: w.reply })),
      'acknowledged keyed writes that did not replay their first answer',
    ).toEqual([]);
    expect(
      retryCut
        .filter((w) => w.status !== 201 && w.status !== 200)
        .map((w) => ({ marker: w.marker, status: w.status, reply: w.reply })),
      'keyed retries that failed',
    ).toEqual([]);

    second.child.kill('SIGTERM');
    expect(await second.exited, second.logs.slice(-10).join('\n')).toBe(0);

    const check = await openDatabase({ databaseUrl: env.env.DATABASE_URL, dataDir: env.dataDir });
    const stored = await storedWrites((sql) => check.prisma.$queryRawUnsafe(sql)).finally(() => check.close());
    const wrong = (list: Write[], ok: (n: number) => boolean) =>
      list
        .filter((w) => !ok(copies(stored, w)))
        .map((w) => ({ marker: w.marker, status: w.status, copies: copies(stored, w) }));
    expect(
      wrong(acked, (n) => n === 1),
      'acknowledged writes not stored exactly once',
    ).toEqual([]);
    expect(
      acked
        .filter(isReport)
        .filter((w) => stored.reports.get(w.marker)![0]!.id !== w.reply.report.id)
        .map((w) => w.marker),
      'stored report ids differ from the acknowledged ones',
    ).toEqual([]);
    expect(
      wrong(retryCut, (n) => n === 1),
      'cut-off keyed writes not stored exactly once after the retry',
    ).toEqual([]);
    const cutUnkeyed = cut.filter((w) => !w.idemKey);
    expect(
      wrong(cutUnkeyed, (n) => n <= 1),
      'cut-off writes stored more than once',
    ).toEqual([]);
    const partial = [...stored.reports.entries()].flatMap(([title, list]) =>
      list.filter((r) => r.links !== 2).map((r) => ({ title, ...r })),
    );
    expect(partial, 'reports stored without both of their related-subject links').toEqual([]);
    const totalStored =
      [...stored.ratings.values()].reduce((a, b) => a + b, 0) +
      [...stored.reports.values()].reduce((a, l) => a + l.length, 0);

    console.log(
      `[faults-sigkill ${backendName}] ${acked.length} writes acknowledged before SIGKILL, all ${acked.length} found exactly once after the restart; ` +
        `${cut.length} cut off by the kill (${[...new Set(cut.map((w) => w.status))].map((c) => `${cut.filter((w) => w.status === c).length} ${c}`).join(', ')}): ` +
        `${retryCut.length} keyed retried (${retryCut.filter((w) => w.status === 201).length} stored now, ${retryCut.filter((w) => w.status === 200).length} had committed: replayed), ` +
        `${cutUnkeyed.length} unkeyed (${cutUnkeyed.filter((w) => copies(stored, w) === 1).length} had committed); ` +
        `${retryAcked.length} acknowledged keyed writes retried: all replayed, none duplicated; ${totalStored} rows stored in all, no partial report`,
    );
  }, 600_000);
});
