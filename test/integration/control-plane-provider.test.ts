import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlaneHarness } from '../web/harness.ts';
import { backendName } from '../helpers/backend.ts';

/**
 * The payment provider down, unreachable, or refusing a stale access token while a user requests a
 * tier. A provider outage is not our bug: the user gets 503 service_unavailable with Retry-After and a
 * plain message on the page and on /workspace/graphql, nothing is recorded, and the log says the
 * provider is unavailable (a warning), never "unhandled". A token PayPal stopped accepting before its
 * announced expiry is replaced, and the call retried once, without the user noticing.
 */
describe(`payment provider unavailable or token stale (${backendName})`, () => {
  let h: ControlPlaneHarness;
  beforeAll(async () => {
    h = await startControlPlane({ smtp: false });
  });
  afterAll(() => h?.close());
  afterEach(() => h.provider.setOutage(false));

  async function signedIn(email: string) {
    const u = h.client();
    expect((await u.signUp(email)).status).toBe(303);
    const gqlCsrf = async () => {
      const r = await fetch(`${h.url}/workspace/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: `rk_session=${u.cookies.get('rk_session')}` },
        body: '{"query":"{ csrfToken }"}',
      });
      return ((await r.json()) as { data: { csrfToken: string } }).data.csrfToken;
    };
    const requestByPage = async () =>
      u.request('/workspace/subscription', {
        form: { _csrf: await u.csrfOf('/workspace/subscription'), tier: 'developer' },
      });
    const requestByGraphql = async () => {
      const res = await fetch(`${h.url}/workspace/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          cookie: `rk_session=${u.cookies.get('rk_session')}`,
          'x-csrf-token': await gqlCsrf(),
        },
        body: JSON.stringify({
          query: 'mutation { requestSubscription(tier: "developer") { latestRequest { status } } }',
        }),
      });
      return {
        status: res.status,
        headers: res.headers,
        body: (await res.json()) as {
          data: unknown;
          errors?: Array<{ message: string; extensions: { code: string } }>;
        },
      };
    };
    return { u, requestByPage, requestByGraphql };
  }
  const requestsOf = async (email: string) => {
    const account = await h.app.db.prisma.account.findUniqueOrThrow({ where: { email } });
    return h.app.db.prisma.subscriptionRequest.count({ where: { accountId: account.id } });
  };
  const badLogs = () => h.logs.filter((l) => /"level":"error"|unhandled/.test(l));

  for (const how of ['status', 'reset'] as const) {
    it(`answers 503 service_unavailable with Retry-After on the page and in GraphQL when PayPal ${how === 'status' ? 'answers 503' : 'drops the connection'}`, async () => {
      const email = `outage-${how}@example.com`;
      const a = await signedIn(email);
      const before = badLogs().length;
      h.provider.setOutage(true, how);

      const page = await a.requestByPage();
      expect(page.status, page.text).toBe(503);
      expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(page.text).toContain('The payment provider (PayPal) is unavailable right now');

      const g = await a.requestByGraphql();
      expect(g.status).toBe(200); // a resolver error, as rate_limited is
      expect(g.body.errors?.[0]?.extensions.code, JSON.stringify(g.body)).toBe('service_unavailable');
      expect(g.body.errors?.[0]?.message).toContain('The payment provider (PayPal) is unavailable right now');
      expect(Number(g.headers.get('retry-after'))).toBeGreaterThan(0);

      expect(await requestsOf(email)).toBe(0);
      expect(badLogs().slice(before)).toEqual([]);
      expect(h.logs.some((l) => l.includes('"level":"warn"') && l.includes('payment provider unavailable'))).toBe(true);

      h.provider.setOutage(false);
      const after = await a.requestByPage();
      expect(after.status, after.text).toBe(303);
      expect(await requestsOf(email)).toBe(1);
    });
  }

  it('replaces an access token PayPal no longer accepts (401) and retries the call once: the request goes through', async () => {
    const a = await signedIn('stale-token@example.com');
    expect((await a.requestByPage()).status).toBe(303); // a token is cached now
    h.provider.revokeTokens();
    const seen = h.provider.requests.length;
    const page = await a.requestByPage();
    expect(page.status, page.text).toBe(303);
    expect(await requestsOf('stale-token@example.com')).toBe(2);
    expect(h.provider.requests.slice(seen).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'POST /v1/billing/subscriptions 401',
      'POST /v1/oauth2/token 200',
      'POST /v1/billing/subscriptions 201',
    ]);
  });

  it('retries only once: a token refused again is a 503, not a loop', async () => {
    const a = await signedIn('refused-token@example.com');
    h.provider.refuseTokens(true);
    try {
      const seen = h.provider.requests.length;
      const page = await a.requestByPage();
      expect(page.status, page.text).toBe(503);
      expect(
        h.provider.requests
          .slice(seen)
          .filter((r) => r.path === '/v1/billing/subscriptions')
          .map((r) => r.status),
      ).toEqual([401, 401]);
    } finally {
      h.provider.refuseTokens(false);
    }
  });
});
