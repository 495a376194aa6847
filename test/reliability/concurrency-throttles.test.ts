import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createApp, type App } from '../../src/app.ts';
import { createLogger } from '../../src/platform/log.ts';
import { REGISTRATIONS_PER_CLIENT } from '../../src/domain/accounts/registration.ts';
import { backendName, freshEnvironment, usingPostgres, usingRedis, type TestEnv } from '../helpers/backend.ts';
import { pooledClient, ServerProcesses, tally } from './support.ts';

/**
 * The control plane's throttles are exact under contention, also when the requests are spread over
 * several processes sharing one Redis: registrations from one client in flight at once get exactly
 * REGISTRATIONS_PER_CLIENT through, and registrations of one address from many clients get exactly one
 * confirmation e-mail (the per-address cooldown).
 */
const CSRF = randomBytes(24).toString('base64url'); // a double-submit token: the same in the cookie and the form

function register(urls: string[], email: (i: number) => string, client: (i: number) => string, n: number) {
  const http = pooledClient(16);
  const body = (i: number) =>
    new URLSearchParams({ _csrf: CSRF, email: email(i), password: 'correct horse battery' }).toString();
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      http.post(urls[i % urls.length]!, '/workspace/register', body(i), {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `rk_csrf=${CSRF}`,
        'x-forwarded-for': client(i),
      }),
    ),
  ).finally(() => http.close());
}

async function expectExact(urls: string[], app: { mail: () => Promise<number> }) {
  const tag = randomBytes(4).toString('hex');
  const fromOne = await register(
    urls,
    (i) => `one-client-${tag}-${i}@example.com`,
    () => '203.0.113.5',
    3 * REGISTRATIONS_PER_CLIENT,
  );
  expect(tally(fromOne, (a) => String(a.status))).toEqual({
    200: REGISTRATIONS_PER_CLIENT,
    429: 2 * REGISTRATIONS_PER_CLIENT,
  });
  for (const a of fromOne.filter((x) => x.status === 429))
    expect(a.headers['retry-after'], a.text.slice(0, 300)).toMatch(/^\d+$/);

  const oneAddress = await register(
    urls,
    () => `one-address-${tag}@example.com`,
    (i) => `198.51.100.${i + 1}`,
    12,
  );
  expect(tally(oneAddress, (a) => String(a.status))).toEqual({ 200: 1, 429: 11 });
  expect(await app.mail()).toBe(REGISTRATIONS_PER_CLIENT + 1);
}

describe(`registration throttles under contention in one process (${backendName})`, () => {
  let env: TestEnv;
  let app: App | null = null;
  afterAll(async () => {
    await app?.close();
    await env?.cleanup();
  });

  it(`lets exactly ${REGISTRATIONS_PER_CLIENT} of ${3 * REGISTRATIONS_PER_CLIENT} concurrent registrations from one client through, and one of 12 for one address`, async () => {
    env = await freshEnvironment({ PUBLISH_INTERVAL_MS: '0', TRUSTED_PROXIES: '127.0.0.1' });
    app = await createApp(loadConfig(env.env), { log: createLogger('silent') });
    const url = await app.start(0, '127.0.0.1');
    await expectExact([url], { mail: () => app!.db.prisma.mailOutbox.count() });
  }, 600_000);
});

describe.runIf(usingPostgres && usingRedis)(
  'registration throttles under contention across three processes on one PostgreSQL and one Redis',
  () => {
    let env: TestEnv;
    const servers = new ServerProcesses();
    afterAll(async () => {
      await servers.stopAll();
      await env?.cleanup();
    });

    it('enforces one budget across processes', async () => {
      env = await freshEnvironment({ TRUSTED_PROXIES: '127.0.0.1' });
      const urls = await Promise.all(
        Array.from({ length: 3 }, () => servers.start({ ...env.env, PUBLISH_INTERVAL_MS: '0' })),
      );
      expect(new Set(urls).size).toBe(3);
      const { openDatabase } = await import('../../src/platform/db/database.ts');
      const db = await openDatabase({ databaseUrl: env.env.DATABASE_URL, dataDir: env.dataDir });
      try {
        await expectExact(urls, { mail: () => db.prisma.mailOutbox.count() });
      } finally {
        await db.close();
      }
    }, 600_000);
  },
);
