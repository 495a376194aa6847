import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphQLClient, type ClientError } from 'graphql-request';
import { startControlPlane, Browserish, type ControlPlaneHarness } from '../web/harness.ts';
import { backendName } from '../helpers/backend.ts';

/**
 * /workspace/graphql: the control plane's GraphQL for signed-in sessions. Every field, the
 * refusals (API keys, no session, missing CSRF token, foreign Origin), workspace isolation, and
 * that the pages show what GraphQL answers (both call the same functions).
 */
type Gql = { status: number; body: any; headers: Headers };

describe(`control plane GraphQL (${backendName})`, () => {
  let h: ControlPlaneHarness;
  beforeAll(async () => {
    h = await startControlPlane();
  });
  afterAll(() => h?.close());

  /** A registered account: its cookie-keeping client and a GraphQL helper sending that cookie. */
  async function account(email: string) {
    const u = h.client();
    const r = await u.signUp(email);
    expect(r.status, r.text).toBe(303);
    const gql = async (
      query: string,
      variables: Record<string, unknown> = {},
      headers: Record<string, string> = {},
    ): Promise<Gql> => {
      const res = await fetch(`${h.url}/workspace/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          cookie: `rk_session=${u.cookies.get('rk_session')}`,
          ...headers,
        },
        body: JSON.stringify({ query, variables }),
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* keep the text for the failure message */
      }
      return { status: res.status, body, headers: res.headers };
    };
    const csrf = (await gql('{ csrfToken }')).body.data.csrfToken as string;
    /** A mutation sent the way a script sends it: with the session's token in X-CSRF-Token. */
    const mutate = (query: string, variables: Record<string, unknown> = {}) =>
      gql(query, variables, { 'x-csrf-token': csrf });
    return { u, gql, mutate, csrf, email };
  }

  const show = (r: Gql) => JSON.stringify(r.body);
  const codeOf = (r: Gql) => r.body?.errors?.[0]?.extensions?.code;
  const api = (path: string, key: string, body: unknown) =>
    fetch(`${h.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const KEY_FIELDS = 'name prefix createdAt lastUsedAt revokedAt status';
  const CREATE = `mutation($name: String!) { createApiKey(name: $name) { secret key { ${KEY_FIELDS} } } }`;
  const REVOKE = `mutation($prefix: String!) { revokeApiKey(prefix: $prefix) { ${KEY_FIELDS} } }`;

  /** The keys table of /workspace/keys as {prefix, name, status, created, lastUsed} rows. */
  async function keysPageRows(u: Browserish) {
    const page = await u.request('/workspace/keys');
    return [
      ...page.text.matchAll(
        /<tr data-prefix="([^"]+)"><td>([^<]*)<\/td><td><code>[^<]+<\/code><\/td><td>([^<]+)<\/td>\s*<td>([^<]+)<\/td><td>([^<]+)<\/td>/g,
      ),
    ].map((m) => ({ prefix: m[1], name: m[2], created: m[3], lastUsed: m[4], status: m[5] }));
  }
  const asPageTime = (iso: string | null) => (iso ? `${iso.replace('T', ' ').slice(0, 19)} UTC` : 'never');

  it('answers me, tiers and csrfToken for the signed-in account', async () => {
    const a = await account('me@example.com');
    const r = await a.gql(
      '{ me { email emailVerified workspace tier { code dailyLimit scoreEligible directReportDailyLimit } } tiers { code name dailyLimit burstPerSecond priceCents scoreEligible directReportDailyLimit requestable } csrfToken }',
    );
    expect(r.status, show(r)).toBe(200);
    const page = await a.u.request('/workspace/keys');
    const workspace = /Keys of workspace ([^<]+)</.exec(page.text)?.[1];
    expect(r.body.data.me).toEqual({
      email: 'me@example.com',
      emailVerified: true,
      workspace,
      tier: { code: 'free', dailyLimit: 0, scoreEligible: false, directReportDailyLimit: 20 },
    });
    expect(r.body.data.tiers.map((t: any) => [t.code, t.requestable])).toEqual([
      ['free', false],
      ['developer', true],
      ['startup', true],
      ['business', false],
      ['enterprise', false], // PAYPAL_PLANS of the harness
    ]);
    expect(r.body.data.tiers[1]).toMatchObject({
      name: 'Developer',
      dailyLimit: 1000,
      scoreEligible: true,
      directReportDailyLimit: 100,
      priceCents: 2900,
    });
    expect(r.body.data.csrfToken).toBe(Browserish.csrf(page.text)); // the token of the page's forms
    expect(r.body.extensions?.cost, show(r)).toMatchObject({ maximum: 100_000 });
    const again = await a.mutate('mutation { sendEmailConfirmation { emailVerified } }');
    expect(codeOf(again), show(again)).toBe('invalid_request'); // confirmed already: no mail
  });

  it('creates a key (secret once) that works on the API, lists it as the page does, and revokes it', async () => {
    const a = await account('keys@example.com');
    expect((await a.gql(`{ apiKeys { ${KEY_FIELDS} } }`)).body.data.apiKeys).toEqual([]);
    const created = await a.mutate(CREATE, { name: '  pipeline  ' });
    expect(created.status, show(created)).toBe(200);
    const { secret, key } = created.body.data.createApiKey;
    expect(secret).toMatch(/^rk_[A-Za-z0-9]{8}_[A-Za-z0-9]{40}$/);
    expect(key).toMatchObject({
      name: 'pipeline',
      prefix: secret.slice(0, 11),
      status: 'active',
      lastUsedAt: null,
      revokedAt: null,
    });

    const rate = await api('/risk_api/rate/', secret, { ip: '203.0.113.9', rating: -1 });
    expect(rate.status, await rate.text()).toBe(201);
    const score = await api('/risk_api/score/', secret, { ip: '8.8.8.8' });
    expect(score.status).toBe(403); // a free workspace's key: score is not in the tier (see the subscription test)
    await h.app.verifier.flushLastUsed();

    await a.mutate(CREATE, { name: 'second' });
    const listed = await a.gql(`{ apiKeys { ${KEY_FIELDS} } }`);
    expect(JSON.stringify(listed.body)).not.toContain(secret.slice(12)); // the secret is never listed
    const keys = listed.body.data.apiKeys;
    expect(keys.map((k: any) => k.name)).toEqual(['second', 'pipeline']); // newest first
    expect(keys[1].lastUsedAt, show(listed)).not.toBeNull();
    // The page shows exactly what GraphQL answers: same keys, order, names, times and statuses.
    expect(await keysPageRows(a.u)).toEqual(
      keys.map((k: any) => ({
        prefix: k.prefix,
        name: k.name,
        created: asPageTime(k.createdAt),
        lastUsed: asPageTime(k.lastUsedAt),
        status: k.status,
      })),
    );

    const revoked = await a.mutate(REVOKE, { prefix: key.prefix });
    expect(revoked.body.data?.revokeApiKey, show(revoked)).toMatchObject({ prefix: key.prefix, status: 'revoked' });
    expect(revoked.body.data.revokeApiKey.revokedAt).not.toBeNull();
    const refused = await api('/risk_api/rate/', secret, { ip: '203.0.113.9', rating: -1 });
    expect(refused.status).toBe(401);
    const again = await a.mutate(REVOKE, { prefix: key.prefix });
    expect(again.body.data.revokeApiKey.revokedAt).toBe(revoked.body.data.revokeApiKey.revokedAt); // idempotent
    expect((await keysPageRows(a.u)).find((r) => r.prefix === key.prefix)?.status).toBe('revoked');
  });

  it('refuses a bad key name with invalid_request and creates nothing', async () => {
    const a = await account('badname@example.com');
    for (const name of ['', '   ', 'x'.repeat(81), 'tab\there']) {
      const r = await a.mutate(CREATE, { name });
      expect(codeOf(r), show(r)).toBe('invalid_request');
    }
    expect((await a.gql('{ apiKeys { prefix } }')).body.data.apiKeys).toEqual([]);
  });

  it("never lets one session see or revoke another workspace's key", async () => {
    const a = await account('owner@example.com');
    const b = await account('intruder@example.com');
    const { secret, key } = (await a.mutate(CREATE, { name: 'owned' })).body.data.createApiKey;
    const attempt = await b.mutate(REVOKE, { prefix: key.prefix });
    expect(codeOf(attempt), show(attempt)).toBe('not_found');
    expect(attempt.body.errors[0].message).toBe(`No key with prefix ${key.prefix} in this workspace.`); // same as an unknown prefix
    const unknown = await b.mutate(REVOKE, { prefix: 'rk_AAAAAAAA' });
    expect(unknown.body.errors[0].message).toBe('No key with prefix rk_AAAAAAAA in this workspace.');
    expect((await b.gql('{ apiKeys { prefix } }')).body.data.apiKeys).toEqual([]);
    expect((await a.gql('{ apiKeys { prefix status } }')).body.data.apiKeys).toEqual([
      { prefix: key.prefix, status: 'active' },
    ]);
    expect((await api('/risk_api/rate/', secret, { ip: '203.0.113.9', rating: 1 })).status).toBe(201);
  });

  it("refuses every mutation without the session's CSRF token (or with another session's) and changes nothing", async () => {
    const a = await account('csrf-gql@example.com');
    const other = await account('csrf-other@example.com');
    const { key } = (await a.mutate(CREATE, { name: 'kept' })).body.data.createApiKey;
    const mutations: Array<[string, Record<string, unknown>]> = [
      [CREATE, { name: 'sneaky' }],
      [REVOKE, { prefix: key.prefix }],
      ['mutation { requestSubscription(tier: "developer") { tier { code } } }', {}],
      ['mutation { resendApprovalMail { tier { code } } }', {}],
      ['mutation { createOverride(input: { target: "192.0.2.1", action: deny, reason: "sneaky" }) { id } }', {}],
    ];
    for (const [query, variables] of mutations) {
      for (const headers of [{}, { 'x-csrf-token': other.csrf }, { 'x-csrf-token': '' }] as Array<
        Record<string, string>
      >) {
        const r = await a.gql(query, variables, headers);
        expect([r.status, codeOf(r)], show(r)).toEqual([403, 'csrf_token_invalid']);
        expect(r.body.data ?? null).toBeNull();
      }
    }
    // The CSRF token in the body instead of the header does not count either.
    const inBody = await a.gql(CREATE, { name: 'sneaky', _csrf: a.csrf });
    expect(codeOf(inBody)).toBe('csrf_token_invalid');
    const state = await a.gql(
      '{ apiKeys { name status } subscription { latestRequest { orderCode } } overrides(state: all) { nodes { id } } }',
    );
    expect(state.body.data).toEqual({
      apiKeys: [{ name: 'kept', status: 'active' }],
      subscription: { latestRequest: null },
      overrides: { nodes: [] },
    });
  });

  it('refuses a foreign Origin even with the right token', async () => {
    const a = await account('origin-gql@example.com');
    const r = await a.gql(CREATE, { name: 'x' }, { 'x-csrf-token': a.csrf, origin: 'https://evil.example' });
    expect([r.status, codeOf(r)], show(r)).toEqual([403, 'origin_not_allowed']);
    const own = await a.gql(CREATE, { name: 'x' }, { 'x-csrf-token': a.csrf, origin: h.url });
    expect(own.status, show(own)).toBe(200);
    expect((await a.gql('{ apiKeys { name } }')).body.data.apiKeys).toEqual([{ name: 'x' }]);
  });

  it('refuses API keys, with or without a session, and answers no data', async () => {
    const a = await account('apikey-gql@example.com');
    const { secret } = (await a.mutate(CREATE, { name: 'k' })).body.data.createApiKey;
    for (const headers of [{ 'x-api-key': secret }, { authorization: `Bearer ${secret}` }] as Array<
      Record<string, string>
    >) {
      const withSession = await a.gql('{ me { email } }', {}, headers);
      expect([withSession.status, codeOf(withSession)], show(withSession)).toEqual([401, 'api_key_not_accepted']);
      const res = await fetch(`${h.url}/workspace/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{"query":"{ me { email } }"}',
      });
      const body = (await res.json()) as any;
      expect([res.status, body.errors?.[0]?.extensions?.code], JSON.stringify(body)).toEqual([
        401,
        'api_key_not_accepted',
      ]);
      expect(body.data).toBeUndefined();
    }
    // …and the API-key schema at /graphql has none of the session fields.
    const onApi = await fetch(`${h.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': secret },
      body: '{"query":"{ me { email } }"}',
    });
    const apiBody = (await onApi.json()) as any;
    expect(apiBody.errors?.[0]?.message, JSON.stringify(apiBody)).toContain('Cannot query field "me"');
  });

  it('refuses a request without a live session with unauthenticated', async () => {
    const a = await account('nosession@example.com');
    const send = (cookie: string | null) =>
      fetch(`${h.url}/workspace/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
        body: '{"query":"{ me { email } csrfToken }"}',
      });
    const old = a.u.cookies.get('rk_session')!;
    await a.u.request('/workspace/sign-out', { form: { _csrf: a.csrf } });
    for (const cookie of [null, 'rk_session=not-a-session', `rk_session=${old}`]) {
      const res = await send(cookie);
      const body = (await res.json()) as any;
      expect([res.status, body.errors?.[0]?.extensions?.code], `${cookie}: ${JSON.stringify(body)}`).toEqual([
        401,
        'unauthenticated',
      ]);
      expect(body.data).toBeUndefined();
    }
  });

  it('serves POST application/json only', async () => {
    const a = await account('transport@example.com');
    const cookie = `rk_session=${a.u.cookies.get('rk_session')}`;
    const get = await fetch(`${h.url}/workspace/graphql?query=%7B%20me%20%7B%20email%20%7D%20%7D`, {
      headers: { cookie },
    });
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const r = await fetch(`${h.url}/workspace/graphql`, {
        method: 'POST',
        headers: { cookie, 'content-type': type },
        body: '{"query":"{ me { email } }"}',
      });
      expect(r.status, await r.text()).toBe(415);
    }
    const big = await a.gql(`{ me { email } } # ${'x'.repeat(70_000)}`);
    expect([big.status, codeOf(big)]).toEqual([413, 'payload_too_large']);
  });

  it('applies the query limits of /graphql', async () => {
    const a = await account('limits-gql@example.com');
    const aliases = Array.from({ length: 31 }, (_, i) => `t${i}: csrfToken`).join(' ');
    const r = await a.gql(`{ ${aliases} }`);
    expect(r.body.errors?.[0]?.extensions, show(r)).toMatchObject({ code: 'query_too_complex', limit: 'maxAliases' });
    // Aliased mutations are capped the same way (30 key creations at most per request).
    const many = Array.from({ length: 31 }, (_, i) => `k${i}: createApiKey(name: "k${i}") { secret }`).join(' ');
    const m = await a.mutate(`mutation { ${many} }`);
    expect(m.body.errors?.[0]?.extensions?.code, show(m)).toBe('query_too_complex');
    expect((await a.gql('{ apiKeys { prefix } }')).body.data.apiKeys).toEqual([]);
  });

  it('requests a tier, refuses a resend within a minute of the approval e-mail, and after approval the key scores; usage matches the page', async () => {
    const a = await account('buyer-gql@example.com');
    // A real GraphQL client, as a script would use it: the cookie and the CSRF header.
    const client = new GraphQLClient(`${h.url}/workspace/graphql`, {
      headers: { cookie: `rk_session=${a.u.cookies.get('rk_session')}`, 'x-csrf-token': a.csrf },
    });
    const {
      createApiKey: { secret },
    } = await client.request<any>('mutation { createApiKey(name: "scorer") { secret } }');

    const STATE =
      '{ tier { code } provider mailDelivered latestRequest { orderCode status createdAt lastMailSentAt tier { code dailyLimit } } }';
    const SUB = `{ subscription ${STATE} }`;
    expect((await client.request<any>(SUB)).subscription).toEqual({
      tier: { code: 'free' },
      provider: 'PayPal',
      mailDelivered: true,
      latestRequest: null,
    });
    const notOffered = await client
      .request('mutation { requestSubscription(tier: "business") { tier { code } } }')
      .catch((e: ClientError) => e);
    expect((notOffered as ClientError).response.errors?.[0]?.extensions?.code).toBe('invalid_request');
    const noPending = await client
      .request('mutation { resendApprovalMail { tier { code } } }')
      .catch((e: ClientError) => e);
    expect((noPending as ClientError).response.errors?.[0]?.extensions?.code).toBe('invalid_request');

    const requested = (await client.request<any>(`mutation { requestSubscription(tier: "developer") ${STATE} }`))
      .requestSubscription;
    expect(requested).toMatchObject({
      tier: { code: 'free' },
      latestRequest: { status: 'pending', tier: { code: 'developer', dailyLimit: 1000 } },
    });
    const order = requested.latestRequest.orderCode as string;
    expect(order).toMatch(/^RK-[0-9A-F]{10}$/);
    expect(requested.latestRequest.lastMailSentAt).not.toBeNull();
    const page = await a.u.request('/workspace/subscription');
    expect(page.text).toContain(`<code>${order}</code>`);
    expect(page.text).toContain('id="request-status">pending');

    // The request's own e-mail starts the minute: a resend right after it is refused (the page's rule too).
    const tooSoon = await a.mutate('mutation { resendApprovalMail { tier { code } } }');
    expect(codeOf(tooSoon), show(tooSoon)).toBe('rate_limited');
    expect(Number(tooSoon.headers.get('retry-after'))).toBeGreaterThan(30);
    expect((await client.request<any>(SUB)).subscription.latestRequest.lastMailSentAt).toBe(
      requested.latestRequest.lastMailSentAt,
    );

    const message = await h.mailTo('buyer-gql@example.com', /checkoutnow/);
    expect(message.text).toContain(order);
    const approval = /(http:\/\/127\.0\.0\.1:\d+\/checkoutnow\?ba_token=I-[A-Z0-9]+)/.exec(message.text)?.[1];
    expect(approval, message.text).toBeDefined();
    expect(await (await fetch(approval!)).text()).toContain('webhook answered 200');

    const after = await client.request<any>(`{ me { tier { code dailyLimit } } subscription ${STATE} }`);
    expect(after.me.tier).toEqual({ code: 'developer', dailyLimit: 1000 });
    expect(after.subscription).toMatchObject({
      tier: { code: 'developer' },
      latestRequest: { orderCode: order, status: 'active' },
    });

    const score = await api('/risk_api/score/', secret, { ip: '8.8.8.8' });
    expect(score.status, await score.clone().text()).toBe(200);
    const report = '/workspace/reports/ip/8.8.8.8';
    expect((await a.u.request(report, { form: { _csrf: await a.u.csrfOf(report) } })).status).toBe(200); // one direct report page view

    const usage = (
      await client.request<any>(
        '{ usage { tier { code } score { usedToday dailyLimit remaining } directReport { usedToday dailyLimit remaining } days { date used } } }',
      )
    ).usage;
    expect(usage).toMatchObject({
      tier: { code: 'developer' },
      score: { usedToday: 1, dailyLimit: 1000, remaining: 999 },
      directReport: { usedToday: 1, dailyLimit: 100, remaining: 99 },
    });
    expect(usage.days).toHaveLength(30);
    expect(usage.days.at(-1)).toEqual({ date: new Date().toISOString().slice(0, 10), used: 1 });
    expect(usage.days.slice(0, -1).every((d: any) => d.used === 0)).toBe(true);
    const usagePage = await a.u.request('/workspace/usage');
    expect(usagePage.text).toContain('id="score-usage">1 / 1000');
    expect(usagePage.text).toContain('id="report-usage">1 / 100');
  });
});
