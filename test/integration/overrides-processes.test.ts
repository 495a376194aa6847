/**
 * Override rules across server processes sharing PostgreSQL (docs/decisions/0021-override-rules-held-in-each-process.md):
 * a rule created through one process applies in the other's scores within its follow interval (OVERRIDE_FOLLOW_MS; the
 * test waits longer, it asserts what shows, not how fast), and an expiry through the other stops it in both.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freshEnvironment, usingPostgres, type TestEnv } from '../helpers/backend.ts';
import { ServerProcesses, pooledClient, seedTierAndKey } from '../reliability/support.ts';

describe.runIf(usingPostgres)('override rules across two server processes (postgresql+redis)', () => {
  const servers = new ServerProcesses();
  const client = pooledClient();
  let env: TestEnv;
  afterAll(async () => {
    client.close();
    await servers.stopAll();
    await env?.cleanup();
  });

  it('applies a rule made through one process in the other, and stops it in both once expired through the other', async () => {
    env = await freshEnvironment();
    const { secret } = await seedTierAndKey(env, { code: 'overrides', dailyLimit: 1_000_000 }, 'two-process-overrides');
    const auth = { 'x-api-key': secret };
    const [a, b] = await Promise.all([
      servers.start({ ...env.env, PUBLISH_INTERVAL_MS: '0' }),
      servers.start({ ...env.env, PUBLISH_INTERVAL_MS: '0' }),
    ]);
    const overrideIn = async (base: string, ip: string) => {
      const r = await client.post(base, '/risk_api/score/', { ip }, auth);
      expect(r.status, r.text).toBe(200);
      return r.body.override as { rule_id: number } | null;
    };
    /** Asks `base` until the answer's rule is `ruleId` (or 30 s pass: then the last answer fails the test). */
    const shownIn = async (base: string, ip: string, ruleId: number | null) => {
      let last: { rule_id: number } | null = null;
      for (const until = Date.now() + 30_000; Date.now() < until; ) {
        last = await overrideIn(base, ip);
        if ((last?.rule_id ?? null) === ruleId) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      return last?.rule_id ?? null;
    };

    const ip = '192.0.2.95';
    expect(await overrideIn(b, ip)).toBeNull();
    const made = await client.post(
      a,
      '/risk_api/overrides/',
      { target: '192.0.2.0/24', action: 'deny', reason: 'through a' },
      auth,
    );
    expect(made.status, made.text).toBe(201);
    const id = made.body.rule.id as number;
    expect((await overrideIn(a, ip))?.rule_id, 'the writing process at once').toBe(id);
    expect(await shownIn(b, ip, id), 'the other process').toBe(id);

    const expired = await client.post(b, '/risk_api/overrides/expire/', { id }, auth);
    expect(expired.status, expired.text).toBe(200);
    expect(await overrideIn(b, ip), 'the expiring process at once').toBeNull();
    expect(await shownIn(a, ip, null), 'the process that made it').toBeNull();
  });
});
