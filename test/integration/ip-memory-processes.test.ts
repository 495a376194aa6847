/**
 * The workspace's memory across server processes sharing PostgreSQL (docs/decisions/0016-score-reads-memory-not-the-database.md):
 * a write through one process shows in another's score within its follow interval (IP_MEMORY_FOLLOW_MS; the
 * test waits longer, it asserts what shows, not how fast), and concurrent writes through both are all counted.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freshEnvironment, usingPostgres, type TestEnv } from '../helpers/backend.ts';
import { ServerProcesses, pooledClient, seedTierAndKey } from '../reliability/support.ts';

describe.runIf(usingPostgres)('the memory across two server processes (postgresql+redis)', () => {
  const servers = new ServerProcesses();
  const client = pooledClient();
  let env: TestEnv;
  afterAll(async () => {
    client.close();
    await servers.stopAll();
    await env?.cleanup();
  });

  it('shows what one process wrote in the other, and every write of both', async () => {
    env = await freshEnvironment();
    const { secret } = await seedTierAndKey(env, { code: 'memory', dailyLimit: 1_000_000 }, 'two-process-memory');
    const auth = { 'x-api-key': secret };
    const [a, b] = await Promise.all([
      servers.start({ ...env.env, PUBLISH_INTERVAL_MS: '0' }),
      servers.start({ ...env.env, PUBLISH_INTERVAL_MS: '0' }),
    ]);
    const memoryIn = async (base: string, ip: string) => {
      const r = await client.post(base, '/risk_api/score/', { ip }, auth);
      expect(r.status, r.text).toBe(200);
      return r.body.workspace_memory;
    };
    /** Asks `base` until its answer matches (or 30 s pass: then the last answer fails the test). */
    const shownIn = async (base: string, ip: string, expected: object) => {
      let last: unknown;
      for (const until = Date.now() + 30_000; Date.now() < until; ) {
        last = await memoryIn(base, ip);
        if (expect.objectContaining(expected).asymmetricMatch(last)) return last;
        await new Promise((r) => setTimeout(r, 100));
      }
      return last;
    };
    const ok = (r: { status: number; text: string }) => expect(r.status, r.text).toBe(201);

    const ip = '192.0.2.90';
    expect(await memoryIn(b, ip)).toMatchObject({ reports: 0, last_rating: null });
    ok(await client.post(a, '/risk_api/rate/', { ip, rating: -1, note: 'through a' }, auth));
    ok(
      await client.post(
        a,
        '/risk_api/report/',
        {
          kind: 'domain',
          key: 'mule.example',
          outcome_code: 'spam',
          related_subjects: [{ kind: 'ipaddress', key: ip, role: 'source_ip' }],
        },
        auth,
      ),
    );
    const expected = {
      ratings: { good: 0, neutral: 0, bad: 1 },
      reports: 1,
      last_rating: expect.objectContaining({ rating: -1, note: 'through a' }),
    };
    expect(await memoryIn(a, ip), 'the writing process at once').toMatchObject(expected);
    expect(await shownIn(b, ip, expected), 'the other process').toMatchObject(expected);

    // concurrent writes about one IP through both processes: no increment is lost, both end equal
    const shared = '192.0.2.91';
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const base = i % 2 ? a : b;
        return (
          i % 3 === 0
            ? client.post(
                base,
                '/risk_api/report/',
                { kind: 'ipaddress', key: shared, outcome_code: 'spam', title: `r${i}` },
                auth,
              )
            : client.post(base, '/risk_api/rate/', { ip: shared, rating: i % 2 ? 1 : -1 }, auth)
        ).then(ok);
      }),
    );
    const all = { ratings: { good: 20, neutral: 0, bad: 20 }, reports: 20 };
    const [inA, inB] = [await shownIn(a, shared, all), await shownIn(b, shared, all)];
    expect(inA).toMatchObject(all);
    expect(inB).toEqual(inA);
  });
});
