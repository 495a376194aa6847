import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { freshEnvironment, usingPostgres, usingRedis, type TestEnv } from '../helpers/backend.ts';
import { pooledClient, seedTierAndKey, ServerProcesses, tally } from './support.ts';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.ts';

/**
 * WORKERS: several processes on one port (node:cluster), sharing nothing but PostgreSQL and Redis. The quota
 * stays exact across them; a worker that dies is replaced while the port keeps answering; the embedded default
 * says it stays one process.
 */
const LIMIT = 200;
const CALLS = 600;

/** Process ids of a process's children that are node workers. */
function workerPids(primary: number): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(primary)], { encoding: 'utf8' });
  } catch (e) {
    if ((e as { status?: number }).status !== 1) throw e; // ps exits 1 when no process matched
  }
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter(([, comm]) => comm === 'node')
    .map(([pid]) => Number(pid));
}

async function waitFor<T>(what: string, read: () => T | undefined, attempts = 600): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const v = read();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.runIf(usingPostgres && usingRedis)('WORKERS=2 on one PostgreSQL and one Redis', () => {
  let env: TestEnv;
  const servers = new ServerProcesses();
  afterAll(async () => {
    await servers.stopAll();
    await env?.cleanup();
  });

  it(`serves one port from two processes, counts exactly ${LIMIT} of ${CALLS} concurrent score calls (in /metrics too, whichever worker answers), and replaces a worker that dies`, async () => {
    env = await freshEnvironment();
    const key = await seedTierAndKey(env, { code: 'workers200', dailyLimit: LIMIT }, 'workers');
    const url = await servers.start({ ...env.env, PUBLISH_INTERVAL_MS: '0', WORKERS: '2' }, 2);
    const [primary] = servers.pids();
    const pids = workerPids(primary!);
    expect(pids).toHaveLength(2);

    // Connections are shared out by the primary: a fresh connection per call spreads the calls over both workers.
    const headers = { 'content-type': 'application/json', 'x-api-key': key.secret, connection: 'close' };
    const client = pooledClient(32);
    const answers = await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        client.post(url, '/risk_api/score/', { ip: `198.51.100.${i % 250}` }, headers),
      ),
    );
    client.close();
    const counts = tally(answers, (a) => `${a.status} ${a.body?.error ?? 'ok'}`);
    expect(counts, JSON.stringify(counts)).toEqual({ '200 ok': LIMIT, '429 quota_exceeded': CALLS - LIMIT });
    const used = answers
      .filter((a) => a.status === 200)
      .map((a) => a.body.quota.used_today as number)
      .sort((a, b) => a - b);
    expect(used).toEqual(Array.from({ length: LIMIT }, (_, i) => i + 1));

    // /metrics, whichever worker takes the scrape, counts the calls of both.
    for (let i = 0; i < 6; i++) {
      const families = parsePrometheusText(
        await (await fetch(`${url}/metrics`, { headers: { connection: 'close' } })).text(),
      );
      expect(
        sampleValue(families, 'risk_score_calls_total', 'risk_score_calls_total', {
          tier: 'workers200',
          surface: 'rest',
        }),
        `scrape ${i}`,
      ).toBe(LIMIT);
      expect(
        sampleValue(families, 'risk_score_refusals_total', 'risk_score_refusals_total', {
          tier: 'workers200',
          surface: 'rest',
          reason: 'quota',
        }),
      ).toBe(CALLS - LIMIT);
      expect(
        sampleValue(families, 'http_request_duration_seconds', 'http_request_duration_seconds_count', {
          route: '/risk_api/score',
          method: 'POST',
          status: '200',
        }),
      ).toBe(LIMIT);
    }

    // A worker killed outright is replaced; the port answers throughout.
    process.kill(pids[0]!, 'SIGKILL');
    const replaced = await waitFor('a replacement worker', () => {
      const now = workerPids(primary!);
      return now.length === 2 && !now.includes(pids[0]!) ? now : undefined;
    });
    expect(replaced).toContain(pids[1]);
    await waitFor('the replacement to listen', () =>
      (servers.output(url).match(/"msg":"listening"/g) ?? []).length >= 3 ? true : undefined,
    );
    expect(servers.output(url)).toContain('"msg":"a worker exited: starting another"');
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${url}/healthz`, { headers: { connection: 'close' } });
      expect(res.status).toBe(200);
    }

    // SIGTERM drains every worker, then the primary says it stopped.
    process.kill(primary!, 'SIGTERM');
    await waitFor('the stopped line', () => (servers.output(url).includes('"msg":"stopped"') ? true : undefined));
  }, 600_000);
});

describe('WORKERS without the shared backends', () => {
  let env: TestEnv;
  const servers = new ServerProcesses();
  afterAll(async () => {
    await servers.stopAll();
    await env?.cleanup();
  });

  it('runs one process on the embedded default and says why', async () => {
    env = await freshEnvironment();
    const { DATABASE_URL: _db, REDIS_URL: _redis, REDIS_KEY_PREFIX: _prefix, ...embedded } = env.env;
    const url = await servers.start({ ...embedded, PUBLISH_INTERVAL_MS: '0', WORKERS: '2' });
    expect(servers.output(url)).toContain('WORKERS ignored: several processes need DATABASE_URL and REDIS_URL');
    expect(workerPids(servers.pids()[0]!)).toEqual([]);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  }, 600_000);
});
