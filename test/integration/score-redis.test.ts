import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName, freshEnvironment, usingPostgres, type TestEnv } from '../helpers/backend.ts';
import { PrivateRedis, freePort } from '../helpers/redis-server.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { createApiKey } from '../../src/domain/access/keys.ts';
import { resolvePepper } from '../../src/domain/access/pepper.ts';
import { SERVER_ENTRY } from '../helpers/server-entry.ts';

describe(`score with Redis counters: outage and recovery (${backendName})`, () => {
  let redis: PrivateRedis;
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    redis = new PrivateRedis(await freePort());
    await redis.start();
    s = await startTestServer({ REDIS_URL: redis.url });
    key = (await s.createKey('outage', { tier: 'developer' })).secret;
  });
  afterAll(async () => {
    await s?.close();
    await redis?.stop();
  });

  it('fails score closed with 503 while Redis is down, keeps rate working, and resumes by itself', async () => {
    const auth = { 'x-api-key': key };
    expect((await s.post('/risk_api/score/', { ip: '8.8.8.8' }, auth)).body.quota.used_today).toBe(1);
    await redis.stop();
    const down = await s.post('/risk_api/score/', { ip: '8.8.8.8' }, auth);
    expect(down.status, JSON.stringify(down.body)).toBe(503);
    expect(down.body.error).toBe('quota_unavailable');
    expect((await s.post('/risk_api/rate/', { ip: '8.8.8.8', rating: -1 }, auth)).status).toBe(201);
    expect((await fetch(`${s.url}/readyz`)).status).toBe(503);
    await redis.start(); // a fresh, empty Redis: counts restart from what it holds
    let status = 0;
    for (let i = 0; i < 60 && status !== 200; i++) {
      status = (await s.post('/risk_api/score/', { ip: '8.8.8.8' }, auth)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
  });
});

describe.runIf(usingPostgres)('exactly daily_limit successes across two server processes sharing Redis', () => {
  let env: TestEnv;
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await env?.cleanup();
  });

  async function startChild(): Promise<string> {
    const child = spawn(process.execPath, [SERVER_ENTRY], {
      env: { PATH: process.env.PATH!, ...env.env, PORT: '0', LOG_LEVEL: 'info', PUBLISH_INTERVAL_MS: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    return new Promise((resolve, reject) => {
      let buffer = '';
      child.stdout!.on('data', (chunk) => {
        buffer += chunk;
        const match = /"url":"([^"]+)"[^\n]*"msg":"listening"/.exec(buffer);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
    });
  }

  it('lets exactly the limit through 150 concurrent calls spread over both', async () => {
    env = await freshEnvironment();
    const db = await openDatabase({ databaseUrl: env.env.DATABASE_URL, dataDir: env.dataDir });
    await db.migrate();
    await db.prisma.tier.create({
      data: {
        code: 'fifty',
        name: 'Fifty',
        scoreEligible: true,
        dailyLimit: 50,
        burstPerSecond: 1000,
        directReportLimit: 1,
        priceCents: 0,
        position: 99,
      },
    });
    const { secret } = await createApiKey(db.prisma, resolvePepper(undefined, env.dataDir), {
      workspace: 'two-procs',
      name: 'k',
      tier: 'fifty',
    });
    await db.close();
    const [a, b] = await Promise.all([startChild(), startChild()]);
    const calls = Array.from({ length: 150 }, (_, i) =>
      fetch(`${i % 2 ? a : b}/risk_api/score/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': secret },
        body: JSON.stringify({ ip: '8.8.8.8' }),
      }).then(async (r) => ({ status: r.status, body: await r.json() })),
    );
    const results = await Promise.all(calls);
    // A tally of "status code" shows at once what came back when this fails.
    const tally: Record<string, number> = {};
    for (const r of results) {
      const k = `${r.status} ${r.body.error ?? 'ok'}`;
      tally[k] = (tally[k] ?? 0) + 1;
    }
    expect(tally).toEqual({ '200 ok': 50, '429 quota_exceeded': 100 });
    const ok = results.filter((r) => r.status === 200);
    expect(new Set(ok.map((r) => r.body.quota.used_today)).size).toBe(50);
  });
});

describe.runIf(usingPostgres)('a tier change applies on the next call of every process', () => {
  it('is announced over Redis so another process drops its cached key at once', async () => {
    const env = await freshEnvironment({ KEY_CACHE_TTL_MS: '60000' }); // the cache alone would keep the old tier for a minute
    const { loadConfig } = await import('../../src/config.ts');
    const { createApp } = await import('../../src/app.ts');
    const { createLogger } = await import('../../src/platform/log.ts');
    const { runCommand } = await import('../../src/transport/admin/commands.ts');
    const { publishInvalidation } = await import('../../src/platform/counters/invalidation.ts');
    const config = loadConfig(env.env);
    const [a, b] = [
      await createApp(config, { log: createLogger('silent') }),
      await createApp(config, { log: createLogger('silent') }),
    ];
    try {
      const urlB = await b.start(0, '127.0.0.1');
      const { secret } = await createApiKey(a.db.prisma, a.pepper, {
        workspace: 'tier-change',
        name: 'k',
        tier: 'free',
      });
      const call = () =>
        fetch(`${urlB}/risk_api/score/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': secret },
          body: '{"ip":"8.8.8.8"}',
        });
      expect((await call()).status).toBe(403);
      await runCommand(
        'workspaces set-tier',
        { workspace: 'tier-change', tier: 'developer' },
        {
          db: a.db,
          dataDir: config.dataDir,
          feedFetch: config.feedFetch,
          pepper: a.pepper,
          network: async () => a.services.network,
          publicationsKept: 3,
          announce: (m) => publishInvalidation({ url: config.redisUrl! }, config.redisKeyPrefix, m),
        },
      );
      let status = 0;
      for (let i = 0; i < 20 && status !== 200; i++) {
        // pub/sub delivery is asynchronous: allow a moment, far below the 60 s TTL
        status = (await call()).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).toBe(200);
    } finally {
      await a.close();
      await b.close();
      await env.cleanup();
    }
  });
});
