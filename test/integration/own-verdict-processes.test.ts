/**
 * The caller's own verdict across two server processes sharing PostgreSQL and Redis: a report written through one
 * process counts in the writer's score on the other within the memory follow interval (IP_MEMORY_FOLLOW_MS, about a
 * second; the test waits longer, it asserts what shows, not how fast), with no publication in between; a
 * false_positive through the other process lowers it back on both, and another workspace's score never moves.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freshEnvironment, usingPostgres, type TestEnv } from '../helpers/backend.ts';
import { ServerProcesses, pooledClient, seedTierAndKey } from '../reliability/support.ts';

describe.runIf(usingPostgres)('own verdict across two server processes (postgresql+redis)', () => {
  const servers = new ServerProcesses();
  const client = pooledClient();
  let env: TestEnv;
  afterAll(async () => {
    client.close();
    await servers.stopAll();
    await env?.cleanup();
  });

  it('shows a report through one process in the other within the follow interval, in the writer only', async () => {
    env = await freshEnvironment();
    const tier = { code: 'own-verdict', dailyLimit: 1_000_000 };
    const mine = { 'x-api-key': (await seedTierAndKey(env, tier, 'own-verdict-a')).secret };
    const other = {
      'x-api-key': (await seedTierAndKey(env, { ...tier, code: 'own-verdict-b' }, 'own-verdict-b')).secret,
    };
    const [a, b] = await Promise.all([
      servers.start({ ...env.env, PUBLISH_INTERVAL_MS: '0' }),
      servers.start({ ...env.env, PUBLISH_INTERVAL_MS: '0' }),
    ]);
    const scoreIn = async (base: string, ip: string, auth: Record<string, string>) => {
      const r = await client.post(base, '/risk_api/score/', { ip }, auth);
      expect(r.status, r.text).toBe(200);
      return r.body.score as { overall_score: number; layers: { own_verdict: string | null } };
    };
    /** Asks `base` until the own verdict is `verdict` (or 30 s pass: then the last answer fails the test). */
    const shownIn = async (base: string, ip: string, verdict: string | null) => {
      let last = await scoreIn(base, ip, mine);
      for (const until = Date.now() + 30_000; Date.now() < until && last.layers.own_verdict !== verdict; ) {
        await new Promise((r) => setTimeout(r, 100));
        last = await scoreIn(base, ip, mine);
      }
      return last;
    };
    const report = async (base: string, ip: string, outcome_code: string, severity: string) => {
      const r = await client.post(
        base,
        '/risk_api/report/',
        { kind: 'ipaddress', key: ip, outcome_code, severity },
        mine,
      );
      expect(r.status, r.text).toBe(201);
    };

    const ip = '192.0.2.96';
    expect((await scoreIn(b, ip, mine)).overall_score).toBe(0);
    await report(a, ip, 'fraud_confirmed', 'critical');
    expect((await scoreIn(a, ip, mine)).overall_score, 'the writing process at once').toBeGreaterThanOrEqual(60);
    const there = await shownIn(b, ip, 'bad');
    expect(there.overall_score, 'the other process').toBeGreaterThanOrEqual(60);
    expect((await scoreIn(b, ip, other)).overall_score, 'another workspace').toBe(0);

    await report(b, ip, 'false_positive', 'low');
    expect(await scoreIn(b, ip, mine), 'the process that cleared it').toMatchObject({ overall_score: 0 });
    expect((await shownIn(a, ip, 'benign')).overall_score, 'the process that reported it').toBe(0);
  });
});
