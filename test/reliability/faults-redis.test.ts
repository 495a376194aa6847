import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'node:http';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { freePort } from '../helpers/redis-server.ts';
import { eventually, sleep } from '../helpers/eventually.ts';
import { PersistentRedis, errno, post } from './faults-helpers.ts';

/**
 * Redis stopped and restarted while score, rate and report calls stream in. The Redis keeps its data
 * (append-only file, as a production Redis does), so the daily counter must continue from where it was:
 * never backwards, never counting one call twice. score fails closed (503 quota_unavailable) while Redis
 * is away and resumes by itself; rate and report do not depend on Redis at all.
 */
describe(`faults: Redis stopped and restarted mid-load (${backendName})`, () => {
  let redis: PersistentRedis;
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    redis = new PersistentRedis(await freePort());
    await redis.start();
    s = await startTestServer({ REDIS_URL: redis.url });
    key = (await s.createKey('redis-fault', { tier: 'enterprise' })).secret; // 5M a day: the quota never runs out here
  }, 600_000);
  afterAll(async () => {
    await s?.close();
    await redis?.destroy();
  });

  it('answers score 503 quota_unavailable during the outage, resumes by itself, and keeps the counter exact', async () => {
    type Call = {
      sentAt: number;
      doneAt: number;
      status: number | string;
      used?: number;
      code?: string;
      retryAfter?: string;
    };
    const scores: Call[] = [];
    const writes: Call[] = [];
    const auth = { 'x-api-key': key };
    let done = false;
    const agents: Agent[] = [];

    const scoreLoop = async (i: number) => {
      const agent = new Agent({ keepAlive: true });
      agents.push(agent);
      const ip = `8.8.${i}.8`;
      while (!done) {
        const sentAt = performance.now();
        const call: Call = await post(s.url, '/risk_api/score/', { ip }, auth, agent).then(
          (r) => ({
            sentAt,
            doneAt: performance.now(),
            status: r.status,
            used: r.body?.quota?.used_today,
            code: r.body?.error,
            retryAfter: r.headers['retry-after'] as string | undefined,
          }),
          (e) => ({ sentAt, doneAt: performance.now(), status: errno(e) }),
        );
        scores.push(call);
        await sleep(4); // a steady stream, well under the tier's 500/s burst limit
      }
    };
    const writeLoop = async (i: number) => {
      const agent = new Agent({ keepAlive: true });
      agents.push(agent);
      for (let n = 0; !done; n++) {
        const sentAt = performance.now();
        const [route, body] =
          n % 2
            ? ['/risk_api/rate/', { ip: `192.0.2.${i}`, rating: -1, note: `w${i}-${n}` }]
            : [
                '/risk_api/report/',
                {
                  kind: 'domain',
                  key: `w${i}-${n}.example`,
                  outcome_code: 'spam',
                  related_subjects: [{ kind: 'ipaddress', key: `192.0.2.${i}`, role: 'source_ip' }],
                },
              ];
        const call: Call = await post(s.url, route, body, auth, agent).then(
          (r) => ({ sentAt, doneAt: performance.now(), status: r.status, code: r.body?.error }),
          (e) => ({ sentAt, doneAt: performance.now(), status: errno(e) }),
        );
        writes.push(call);
        await sleep(10);
      }
    };
    const ok = (c: Call) => c.status === 200;
    const readyz = async () => {
      const r = await fetch(`${s.url}/readyz`);
      return { status: r.status, body: (await r.json()) as { checks: Record<string, string> } };
    };

    const loops = [0, 1, 2, 3].map(scoreLoop).concat([0, 1].map(writeLoop));
    let stoppedAt = 0;
    let restartAt = 0; // Redis is down from stoppedAt until restartAt (when it is being started again)
    let startedAt = 0;
    let readyDuring: { status: number; body: { checks: Record<string, string> } } | null = null;
    try {
      expect(
        await eventually(async () => scores.filter(ok).length >= 40),
        'score never reached 40 successes before the outage',
      ).toBe(true);
      await redis.stop();
      stoppedAt = performance.now();
      expect(await eventually(async () => scores.filter((c) => c.sentAt > stoppedAt).length >= 20)).toBe(true);
      readyDuring = await readyz();
      await sleep(300); // rate and report keep streaming through the outage
      restartAt = performance.now();
      await redis.start();
      startedAt = performance.now();
      const resumed = await eventually(
        async () => scores.filter((c) => c.sentAt > startedAt && ok(c)).length >= 40,
        300_000,
        100,
      );
      expect(
        resumed,
        `score did not resume within 20 s of Redis returning; last answers: ${JSON.stringify(scores.slice(-3))}`,
      ).toBe(true);
    } finally {
      done = true;
      await Promise.all(loops);
      for (const a of agents) a.destroy();
    }
    const final = await post(s.url, '/risk_api/score/', { ip: '8.8.8.8' }, auth);
    expect(final.status, JSON.stringify(final.body)).toBe(200);

    // Every score answer is a success or the coded fail-closed refusal; nothing else (no 500, no dropped connection).
    const unexpected = scores.filter(
      (c) => !ok(c) && !(c.status === 503 && c.code === 'quota_unavailable' && c.retryAfter === '5'),
    );
    expect(unexpected, 'score answers other than 200 or 503 quota_unavailable').toEqual([]);
    const refused = scores.filter((c) => c.status === 503);
    // A call made and answered while Redis was down can only be refused: a metered call is never served unmetered.
    const whileDown = scores.filter((c) => c.sentAt > stoppedAt && c.doneAt < restartAt);
    expect(whileDown.filter(ok), 'score succeeded while Redis was down').toEqual([]);
    expect(whileDown.length).toBeGreaterThanOrEqual(20);
    expect(refused.length).toBeGreaterThanOrEqual(20);
    // Once the first call succeeds after the restart, every later call succeeds: resumed without a server restart.
    const firstBack = Math.min(...scores.filter((c) => c.sentAt > startedAt && ok(c)).map((c) => c.doneAt));
    expect(
      scores.filter((c) => c.sentAt > firstBack && !ok(c)),
      'score failed again after resuming',
    ).toEqual([]);

    // The counter: one distinct value per success (no double count), continuing after the restart (never backwards).
    const successes = [...scores.filter(ok), { ...final, used: final.body.quota.used_today }].map((c) => c.used!);
    expect(new Set(successes).size, 'two successes answered the same used_today').toBe(successes.length);
    const before = scores.filter((c) => ok(c) && c.sentAt < stoppedAt).map((c) => c.used!);
    const after = scores.filter((c) => ok(c) && c.sentAt > startedAt).map((c) => c.used!);
    expect(Math.min(...after), `counter went backwards: max before the outage ${Math.max(...before)}`).toBeGreaterThan(
      Math.max(...before),
    );
    // Every success counted once, and a refused call is never counted — except one Redis applied just as it
    // stopped, whose reply was lost with the connection (at most the calls in flight at that moment).
    const usedNow = final.body.quota.used_today as number;
    const inFlightAtStop = refused.filter((c) => c.sentAt < stoppedAt).length;
    expect(
      usedNow - successes.length,
      `used_today ${usedNow} for ${successes.length} successes`,
    ).toBeGreaterThanOrEqual(0);
    expect(
      usedNow - successes.length,
      `used_today ${usedNow} for ${successes.length} successes (${inFlightAtStop} calls in flight at the stop)`,
    ).toBeLessThanOrEqual(inFlightAtStop);

    // rate and report never fail because of Redis, before, during or after the outage.
    expect(
      writes.filter((c) => c.status !== 201),
      'rate/report answers other than 201',
    ).toEqual([]);
    expect(
      writes.filter((c) => c.sentAt > stoppedAt && c.doneAt < restartAt).length,
      'no rate/report write was made while Redis was down',
    ).toBeGreaterThan(0);

    // readyz tells a load balancer about the outage, and recovers with Redis.
    expect(readyDuring?.status, JSON.stringify(readyDuring?.body)).toBe(503);
    expect(readyDuring?.body.checks.counters).toBe('unreachable');
    expect((await readyz()).status).toBe(200);

    console.log(
      `[faults-redis ${backendName}] score: ${successes.length} successes (${before.length} before, ${after.length} after the restart), ` +
        `${refused.length} answered 503 quota_unavailable (${inFlightAtStop} in flight at the stop); used_today ${usedNow}; ` +
        `rate/report: ${writes.length} writes all 201 (${writes.filter((c) => c.sentAt > stoppedAt && c.doneAt < restartAt).length} during the outage)`,
    );
  }, 600_000);
});
