import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createApp, type App } from '../../src/app.ts';
import { createLogger } from '../../src/platform/log.ts';
import { backendName, freshEnvironment, usingPostgres, usingRedis, type TestEnv } from '../helpers/backend.ts';
import { pooledClient, seedTierAndKey, ServerProcesses, tally, type Answer } from './support.ts';

/**
 * Exactly-once metering under contention: 1,000 `score` calls in flight at once against a daily
 * limit of 300. Exactly 300 succeed, each handed a distinct count 1..300; the other 700 are
 * refused with quota_exceeded; afterwards every process reads used_today = 300. Then the same for batches: 100
 * batches of 7 distinct IPs (plus a repeat and an invalid item, never counted) against another workspace's 300:
 * exactly 42 are reserved whole (7, 14, ..., 294), 58 are refused with nothing counted, and 6 are left.
 */
const CALLS = 1000;
const LIMIT = 300;
const IPS = ['8.8.8.8', '1.1.1.1', '9.9.9.9', '2001:4860:4860::8888'];
const GRAPHQL_SCORE = 'query($ip: String!) { score(ip: $ip) { quota { usedToday remaining } } }';

type Outcome = { via: 'rest' | 'graphql'; code: string; usedToday: number | null; answer: Answer };

function outcomeOf(via: Outcome['via'], a: Answer): Outcome {
  if (via === 'rest') {
    if (a.status === 200) return { via, code: 'ok', usedToday: a.body.quota.used_today, answer: a };
    return { via, code: `${a.status} ${a.body?.error}`, usedToday: a.body?.quota?.used_today ?? null, answer: a };
  }
  const error = a.body?.errors?.[0];
  if (!error && a.body?.data?.score)
    return { via, code: 'ok', usedToday: a.body.data.score.quota.usedToday, answer: a };
  return { via, code: String(error?.extensions?.code ?? `HTTP ${a.status}`), usedToday: null, answer: a };
}

/** Fires every call at once (`urls[i % urls.length]`), one in five through GraphQL's score field. */
async function contend(urls: string[], secret: string): Promise<Outcome[]> {
  const client = pooledClient(64);
  try {
    const headers = { 'x-api-key': secret };
    return await Promise.all(
      Array.from({ length: CALLS }, async (_, i) => {
        const url = urls[i % urls.length]!;
        const ip = IPS[i % IPS.length]!;
        if (i % 5 === 4)
          return outcomeOf(
            'graphql',
            await client.post(url, '/graphql', { query: GRAPHQL_SCORE, variables: { ip } }, headers),
          );
        return outcomeOf('rest', await client.post(url, '/risk_api/score/', { ip }, headers));
      }),
    );
  } finally {
    client.close();
  }
}

function expectExactlyOnce(outcomes: Outcome[]) {
  const counts = tally(outcomes, (o) => `${o.via} ${o.code}`);
  const shown = JSON.stringify(counts);
  const ok = outcomes.filter((o) => o.code === 'ok');
  const refused = outcomes.filter((o) => o.code === (o.via === 'rest' ? '429 quota_exceeded' : 'quota_exceeded'));
  expect(ok.length, shown).toBe(LIMIT);
  expect(refused.length, shown).toBe(CALLS - LIMIT);
  // Each success got its own count: no count was handed out twice, none skipped.
  expect(ok.map((o) => o.usedToday).sort((a, b) => a! - b!)).toEqual(Array.from({ length: LIMIT }, (_, i) => i + 1));
  // A refusal reports the day as used up (REST carries the quota in its body).
  for (const r of refused.filter((o) => o.via === 'rest')) {
    expect(r.answer.body.quota, r.answer.text).toMatchObject({
      daily_limit: LIMIT,
      used_today: LIMIT,
      remaining: 0,
      over_limit: true,
    });
    expect(r.answer.headers['retry-after'], r.answer.text).toMatch(/^\d+$/);
  }
  return counts;
}

const BATCHES = 100;
const BATCH_UNITS = 7;
const BATCHES_FIT = Math.floor(LIMIT / BATCH_UNITS); // 42: 294 of the 300
const GRAPHQL_BATCH =
  'query($ips: [String!]!) { scoreBatch(ips: $ips) { quota { usedToday } results { input error { code } } } }';

/** One batch per call: 7 distinct addresses, one of them repeated, and an invalid item; one in five through GraphQL. */
async function contendBatches(urls: string[], secret: string): Promise<Outcome[]> {
  const client = pooledClient(64);
  try {
    const headers = { 'x-api-key': secret };
    return await Promise.all(
      Array.from({ length: BATCHES }, async (_, i) => {
        const url = urls[i % urls.length]!;
        const distinct = Array.from({ length: BATCH_UNITS }, (_, j) => `10.${i}.0.${j + 1}`);
        const ips = [...distinct, distinct[0]!, 'not-an-ip'];
        if (i % 5 === 4) {
          const a = await client.post(url, '/graphql', { query: GRAPHQL_BATCH, variables: { ips } }, headers);
          const error = a.body?.errors?.[0];
          if (!error && a.body?.data?.scoreBatch)
            return { via: 'graphql', code: 'ok', usedToday: a.body.data.scoreBatch.quota.usedToday, answer: a };
          return {
            via: 'graphql',
            code: String(error?.extensions?.code ?? `HTTP ${a.status}`),
            usedToday: null,
            answer: a,
          };
        }
        return outcomeOf('rest', await client.post(url, '/risk_api/score/batch/', { ips }, headers));
      }),
    );
  } finally {
    client.close();
  }
}

function expectBatchesReservedWhole(outcomes: Outcome[]) {
  const counts = tally(outcomes, (o) => `${o.via} ${o.code}`);
  const shown = JSON.stringify(counts);
  const ok = outcomes.filter((o) => o.code === 'ok');
  expect(ok.length, shown).toBe(BATCHES_FIT);
  expect(
    outcomes.filter((o) => o.code === (o.via === 'rest' ? '429 quota_exceeded' : 'quota_exceeded')).length,
    shown,
  ).toBe(BATCHES - BATCHES_FIT);
  // Each reservation got its own 7 units: the counts after them are 7, 14, ..., 294, none shared, none skipped.
  expect(ok.map((o) => o.usedToday).sort((a, b) => a! - b!)).toEqual(
    Array.from({ length: BATCHES_FIT }, (_, i) => BATCH_UNITS * (i + 1)),
  );
  for (const o of ok.filter((x) => x.via === 'rest'))
    expect(o.answer.body.results.at(-1).error, o.answer.text).toBe('invalid_ip');
  return counts;
}

/** The 6 units left fit one more batch of 6 (at `urls[0]`); then every process refuses a batch of one, reading 300. */
async function expectBatchDayUsedUp(urls: string[], secret: string) {
  const client = pooledClient(1);
  try {
    const headers = { 'x-api-key': secret };
    const last = await client.post(
      urls[0]!,
      '/risk_api/score/batch/',
      { ips: Array.from({ length: LIMIT - BATCHES_FIT * BATCH_UNITS }, (_, j) => `10.250.0.${j + 1}`) },
      headers,
    );
    expect([last.status, last.body?.quota?.used_today], last.text).toEqual([200, LIMIT]);
    for (const url of urls) {
      const after = await client.post(url, '/risk_api/score/batch/', { ips: ['10.251.0.1'] }, headers);
      expect([after.status, after.body?.error, after.body?.quota?.used_today], url).toEqual([
        429,
        'quota_exceeded',
        LIMIT,
      ]);
    }
  } finally {
    client.close();
  }
}

/** What a process says today's count is: one more call, refused, carries it (and is not counted). */
async function usedTodayAt(url: string, secret: string) {
  const client = pooledClient(1);
  try {
    const rest = await client.post(url, '/risk_api/score/', { ip: '8.8.8.8' }, { 'x-api-key': secret });
    const gql = await client.post(
      url,
      '/graphql',
      { query: GRAPHQL_SCORE, variables: { ip: '8.8.8.8' } },
      { 'x-api-key': secret },
    );
    return {
      status: rest.status,
      error: rest.body?.error,
      usedToday: rest.body?.quota?.used_today,
      graphql: gql.body?.errors?.[0]?.extensions?.code,
    };
  } finally {
    client.close();
  }
}

describe(`exactly-once score quota under contention in one process (${backendName})`, () => {
  let env: TestEnv;
  let app: App | null = null;
  afterAll(async () => {
    await app?.close();
    await env?.cleanup();
  });

  it(`lets exactly ${LIMIT} of ${CALLS} concurrent calls through`, async () => {
    env = await freshEnvironment({ PUBLISH_INTERVAL_MS: '0' });
    const key = await seedTierAndKey(env, { code: 'quota300', dailyLimit: LIMIT }, 'contention-one');
    const batchKey = await seedTierAndKey(env, { code: 'batch300', dailyLimit: LIMIT }, 'contention-one-batch');
    app = await createApp(loadConfig(env.env), { log: createLogger('silent') });
    const url = await app.start(0, '127.0.0.1');

    const counts = expectExactlyOnce(await contend([url], key.secret));
    console.log(`[concurrency-quota] one process (${backendName}): ${JSON.stringify(counts)}`);
    expect(await usedTodayAt(url, key.secret)).toEqual({
      status: 429,
      error: 'quota_exceeded',
      usedToday: LIMIT,
      graphql: 'quota_exceeded',
    });
    const workspace = await app.db.prisma.workspace.findUniqueOrThrow({ where: { name: 'contention-one' } });
    const tier = app.services.tiers.get('quota300');
    expect((await app.services.meter.peek(workspace.id, tier)).usedToday).toBe(LIMIT);

    const batchCounts = expectBatchesReservedWhole(await contendBatches([url], batchKey.secret));
    console.log(`[concurrency-quota] batches, one process (${backendName}): ${JSON.stringify(batchCounts)}`);
    await expectBatchDayUsedUp([url], batchKey.secret);
  }, 300_000); // a hang's bound: 2,000 calls on a machine busy with other suites took over 2 minutes
});

describe.runIf(usingPostgres && usingRedis)(
  'exactly-once score quota under contention across four processes on one PostgreSQL and one Redis',
  () => {
    let env: TestEnv;
    const servers = new ServerProcesses();
    afterAll(async () => {
      await servers.stopAll();
      await env?.cleanup();
    });

    it(`lets exactly ${LIMIT} of ${CALLS} concurrent calls spread over 4 processes through, and all 4 then read ${LIMIT}`, async () => {
      env = await freshEnvironment();
      const key = await seedTierAndKey(env, { code: 'quota300', dailyLimit: LIMIT }, 'contention-four');
      const batchKey = await seedTierAndKey(env, { code: 'batch300', dailyLimit: LIMIT }, 'contention-four-batch');
      const urls = await Promise.all(
        Array.from({ length: 4 }, () => servers.start({ ...env.env, PUBLISH_INTERVAL_MS: '0' })),
      );
      expect(new Set(urls).size).toBe(4);
      // Warm each process (key cache, first-request work) with a call that is not metered, so that none of them is still
      // cold while the other three use up the day: the contention must really be spread over the four.
      for (const url of urls) {
        const warm = await fetch(`${url}/risk_api/dimensions/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key.secret },
          body: JSON.stringify({ ip: IPS[0] }),
        });
        expect(warm.status, await warm.text()).toBe(200);
      }

      const outcomes = await contend(urls, key.secret);
      const counts = expectExactlyOnce(outcomes);
      // The successes came from several processes (the contention really was across processes). Not "from every one":
      // which process wins the last calls of the day is up to scheduling, and a slow one may legitimately get none.
      const okPerProcess = urls.map(
        (_, p) => outcomes.filter((o, i) => i % urls.length === p && o.code === 'ok').length,
      );
      expect(okPerProcess.filter((n) => n > 0).length, JSON.stringify(okPerProcess)).toBeGreaterThanOrEqual(2);
      console.log(
        `[concurrency-quota] four processes: ${JSON.stringify(counts)}; successes per process ${JSON.stringify(okPerProcess)}`,
      );

      for (const url of urls) {
        expect(await usedTodayAt(url, key.secret), url).toEqual({
          status: 429,
          error: 'quota_exceeded',
          usedToday: LIMIT,
          graphql: 'quota_exceeded',
        });
      }

      const batches = await contendBatches(urls, batchKey.secret);
      const batchCounts = expectBatchesReservedWhole(batches);
      const batchOkPerProcess = urls.map(
        (_, p) => batches.filter((o, i) => i % urls.length === p && o.code === 'ok').length,
      );
      expect(batchOkPerProcess.filter((n) => n > 0).length, JSON.stringify(batchOkPerProcess)).toBeGreaterThanOrEqual(
        2,
      );
      console.log(
        `[concurrency-quota] batches, four processes: ${JSON.stringify(batchCounts)}; reserved per process ${JSON.stringify(batchOkPerProcess)}`,
      );
      await expectBatchDayUsedUp(urls, batchKey.secret);
    }, 600_000); // a hang's bound: four servers' starts and 2,000 calls passed 3 minutes on a busy machine
  },
);
