import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { startControlPlane, Browserish, confirmationLink, type ControlPlaneHarness } from '../web/harness.ts';
import { backendName } from '../helpers/backend.ts';
import { hashApiKey } from '../../src/domain/access/key-format.ts';

/**
 * A whole run at LOG_LEVEL=debug — register, confirm the mailed link, sign in (wrong password first), create keys, score,
 * rate and report with good and bad keys, GraphQL with good and bad keys, a subscription through
 * the PayPal test double with its signed webhook, a forged webhook, a revocation, sign-out, /metrics with its token,
 * wrong tokens and an API key, and client errors of every kind — with every log line captured. Then each secret of
 * the run is searched for in the logs, in every error body and in every GraphQL error: API keys (whole and
 * secret part), their stored hashes, the key pepper, passwords (right and wrong), the confirmation link's token, session and
 * CSRF cookie values, CSRF tokens, webhook signing secrets (created and rotated), the PayPal client secret and its Basic credentials, PayPal access tokens and the
 * metrics token. The operator's and security events of the run are in the log as audit lines, and every request
 * has its access line with the key's prefix (never the key). Without SMTP, held mail is logged without its text.
 */
const METRICS_TOKEN = `mt-${randomBytes(18).toString('base64url')}`;
type Seen = { what: string; status: number; text: string };

describe(`no secret in logs, error bodies or GraphQL errors (${backendName})`, () => {
  let h: ControlPlaneHarness;
  const secrets = new Map<string, { name: string; formToken: boolean }>(); // value -> what it is
  const errors: Seen[] = []; // every error body and every GraphQL answer carrying errors
  /**
   * `formToken`: a CSRF token, which the pages sent to its own holder must carry (every form,
   * including a form shown again after an error, embeds it); it still may never be logged.
   */
  const keep = (name: string, value: string | undefined | null, formToken = false) => {
    expect(value, `${name} was not captured`).toBeTruthy();
    secrets.set(value!, { name, formToken });
  };

  beforeAll(async () => {
    h = await startControlPlane({ env: { METRICS_TOKEN } });
  }, 600_000);
  afterAll(() => h?.close());

  async function api(
    what: string,
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: string },
  ) {
    const res = await fetch(h.url + path, {
      method: init.method ?? 'POST',
      headers: { 'content-type': 'application/json', ...init.headers },
      body: init.body,
    });
    const text = await res.text();
    let body: any = null;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    if (res.status >= 400 || body?.errors) errors.push({ what, status: res.status, text });
    return { status: res.status, body, text };
  }
  /** Browserish request that files error pages too. */
  async function page(u: Browserish, what: string, path: string, init: Parameters<Browserish['request']>[1] = {}) {
    const r = await u.request(path, init);
    if (r.status >= 400) errors.push({ what, status: r.status, text: r.text });
    for (const [name, value] of u.cookies) keep(`cookie ${name}`, value, name === 'rk_csrf');
    return r;
  }

  it('runs the whole flow', async () => {
    keep('API key pepper', h.app.pepper);
    keep('PayPal client secret', 'csecret');
    keep('PayPal Basic credentials', Buffer.from('cid:csecret').toString('base64'));
    keep('metrics token', METRICS_TOKEN);

    // Accounts: register, confirm through the mailed link, a wrong password, then the right one.
    const password = `pw-${randomBytes(9).toString('base64url')}`;
    const wrongPassword = `pw-wrong-${randomBytes(9).toString('base64url')}`;
    keep('password', password);
    keep('wrong password', wrongPassword);
    const email = 'secrets@example.com';
    const u = new Browserish(h.url);
    const form = await page(u, 'register form', '/workspace/register');
    keep('pre-session CSRF token', Browserish.csrf(form.text), true);
    expect(
      (
        await page(u, 'register', '/workspace/register', {
          form: { _csrf: Browserish.csrf(form.text), email, password },
        })
      ).status,
    ).toBe(200);
    const link = await confirmationLink(h.mailTo, email);
    // Like a CSRF token, the confirm form shown again after a wrong password carries it back to its holder; never logged.
    keep('confirmation link token', new URL(link).searchParams.get('token'), true);
    const confirmForm = await page(u, 'confirmation page', new URL(link).pathname + new URL(link).search);
    const confirm = (what: string, pw: string) =>
      page(u, what, '/workspace/confirm', {
        form: {
          _csrf: Browserish.csrf(confirmForm.text),
          token: new URL(link).searchParams.get('token')!,
          password: pw,
        },
      });
    expect((await confirm('confirm, wrong password', wrongPassword)).status).toBe(401);
    expect((await confirm('confirm', password)).status).toBe(303);
    expect((await confirm('confirm again', password)).status).toBe(400);
    const short = await page(u, 'register, short password', '/workspace/register', {
      form: {
        _csrf: await u.csrfOf('/workspace/register').catch(() => ''),
        email: 'short@example.com',
        password: 'short',
      },
    });
    expect(short.status).toBeGreaterThanOrEqual(300);
    const v = new Browserish(h.url);
    const signIn = await page(v, 'sign-in form', '/workspace/sign-in');
    const wrong = await page(v, 'wrong password', '/workspace/sign-in', {
      form: { _csrf: Browserish.csrf(signIn.text), email, password: wrongPassword },
    });
    expect(wrong.status).toBe(401);
    const right = await page(v, 'sign-in', '/workspace/sign-in', {
      form: { _csrf: Browserish.csrf(signIn.text), email, password },
    });
    expect(right.status, right.text).toBe(303);

    // Keys through the pages (the secret is shown once, in that answer: not an error body).
    const keysPage = await page(v, 'keys page', '/workspace/keys');
    keep('session CSRF token', Browserish.csrf(keysPage.text), true);
    const created = await page(v, 'create key', '/workspace/keys', {
      form: { _csrf: Browserish.csrf(keysPage.text), name: 'pipeline' },
    });
    const secret = /id="secret">([^<]+)</.exec(created.text)?.[1];
    keep('API key', secret);
    const [prefix, secretPart] = [secret!.slice(0, 11), secret!.slice(12)];
    keep('API key secret part', secretPart);
    keep('stored API key hash', hashApiKey(h.app.pepper, secret!));
    const other = await page(v, 'create key 2', '/workspace/keys', {
      form: { _csrf: Browserish.csrf(keysPage.text), name: 'second' },
    });
    const second = /id="secret">([^<]+)</.exec(other.text)?.[1];
    keep('second API key', second);
    // A webhook endpoint through the page, then its secret rotated: each secret shown once, in that answer only.
    const hook = await page(v, 'create webhook endpoint', '/workspace/webhooks', {
      form: {
        _csrf: Browserish.csrf(keysPage.text),
        url: 'https://hooks.example.com/risk',
        event_types: 'watch.reported',
      },
    });
    expect(hook.status, hook.text).toBe(201);
    keep('webhook signing secret', /id="secret">(whsec_[^<]+)</.exec(hook.text)?.[1]);
    const hookId = /<tr data-endpoint="(\d+)">/.exec(hook.text)?.[1];
    const rotatedHook = await page(v, 'rotate webhook secret', '/workspace/webhooks/rotate', {
      form: { _csrf: Browserish.csrf(keysPage.text), id: hookId ?? '' },
    });
    keep('rotated webhook signing secret', /id="secret">(whsec_[^<]+)</.exec(rotatedHook.text)?.[1]);

    // A paid tier through the PayPal double: OAuth with the client secret, signed webhook.
    const sub = await page(v, 'subscribe', '/workspace/subscription', {
      form: { _csrf: Browserish.csrf(keysPage.text), tier: 'developer' },
    });
    expect(sub.status, sub.text).toBe(303);
    const message = await h.mailTo(email, /checkoutnow/);
    const approval = /(http:\/\/127\.0\.0\.1:\d+\/checkoutnow\?ba_token=I-[A-Z0-9]+)/.exec(message.text)?.[1];
    expect(approval, message.text).toBeDefined();
    expect(await (await fetch(approval!)).text()).toContain('webhook answered 200');
    const forged = await fetch(`${h.url}/webhooks/paypal`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'paypal-transmission-sig': 'forged',
        'paypal-transmission-id': 'x',
        'paypal-transmission-time': new Date().toISOString(),
        'paypal-cert-url': `${h.provider.url}/v1/notifications/certs/CERT-dev`,
        'paypal-auth-algo': 'SHA256withRSA',
      },
      body: '{"id":"WH-forged","event_type":"BILLING.SUBSCRIPTION.ACTIVATED","resource":{}}',
    });
    errors.push({ what: 'forged webhook', status: forged.status, text: await forged.text() });
    expect(forged.status).toBe(400);

    // The API with good keys, both headers; a caller's own request id and trace context.
    const good = {
      'x-api-key': secret!,
      'x-request-id': 'secrets-run-1',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    };
    expect((await api('score', '/risk_api/score/', { headers: good, body: '{"ip":"8.8.8.8"}' })).status).toBe(200);
    expect(
      (
        await api('rate', '/risk_api/rate/', {
          headers: { authorization: `Bearer ${secret}` },
          body: '{"ip":"8.8.8.8","rating":-1,"note":"n"}',
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api('report', '/risk_api/report/', {
          headers: good,
          body: '{"kind":"domain","key":"mule.example","outcome_code":"spam"}',
        })
      ).status,
    ).toBe(201);
    expect(
      (await api('graphql', '/graphql', { headers: good, body: '{"query":"{ viewer { apiKey { prefix } } }"}' })).body
        .data.viewer.apiKey.prefix,
    ).toBe(prefix);

    // The API with bad keys and bad requests: each answer is an error body that must not echo a secret.
    const wrongSecret = `${prefix}_${'Q'.repeat(40)}`;
    // Another prefix with the same secret part: its first character always differs from the real one's
    // (a fixed "Zz" once matched a random prefix that began with it, and the "unknown" key was the key).
    const unknownPrefix = `rk_${prefix[3] === 'Z' ? 'Y' : 'Z'}${prefix.slice(4)}`;
    const badAuth: Array<[string, Record<string, string>]> = [
      ['wrong secret', { 'x-api-key': wrongSecret }],
      ['unknown prefix', { 'x-api-key': `${unknownPrefix}_${secretPart}` }],
      ['malformed key', { 'x-api-key': `${secret}x` }],
      ['Basic instead of Bearer', { authorization: `Basic ${secret}` }],
      ['Bearer with extra words', { authorization: `Bearer ${secret} ${second}` }],
      ['two different keys', { 'x-api-key': secret!, authorization: `Bearer ${second}` }],
      ['key in the wrong header', { 'x-api-token': secret! }],
    ];
    for (const [what, headers] of badAuth) {
      for (const path of ['/risk_api/score/', '/risk_api/rate/', '/risk_api/report/', '/risk_api/dimensions/']) {
        const r = await api(`${what} ${path}`, path, { headers, body: '{"ip":"8.8.8.8","rating":1}' });
        expect(r.status, `${what} ${path}: ${r.text}`).toBeGreaterThanOrEqual(400);
      }
      const g = await api(`${what} graphql`, '/graphql', {
        headers,
        body: '{"query":"{ viewer { workspace { name } } }"}',
      });
      expect(g.body?.errors ?? g.status >= 400, `${what} graphql: ${g.text}`).toBeTruthy();
      await api(`${what} export`, '/risk_api/export/', { method: 'GET', headers });
    }
    const clientErrors: Array<[string, string, Record<string, string>]> = [
      ['invalid JSON', '{"ip":', {}],
      ['unknown field', `{"ip":"8.8.8.8","api_key":"${secret}"}`, {}],
      ['bad IP', '{"ip":"999.1.1.1"}', {}],
      ['bad idempotency key', '{"ip":"8.8.8.8","rating":1}', { 'idempotency-key': 'ü' }],
      ['wrong content type', '{"ip":"8.8.8.8"}', { 'content-type': 'text/plain' }],
    ];
    for (const [what, body, headers] of clientErrors) {
      const r = await api(what, '/risk_api/rate/', { headers: { ...good, ...headers }, body });
      expect(r.status, `${what}: ${r.text}`).toBeGreaterThanOrEqual(400);
    }
    await api('graphql syntax error', '/graphql', { headers: good, body: '{"query":"{ viewer { "}' });
    await api('graphql validation error', '/graphql', {
      headers: good,
      body: JSON.stringify({ query: `{ subject(kind: email, key: "${secretPart}@x.example") { nope } }` }),
    });
    await api('graphql bad input', '/graphql', {
      headers: good,
      body: '{"query":"mutation { rate(input: { ip: \\"1.2.3\\", rating: 7 }) { rating { id } } }"}',
    });

    // The control plane with an API key, an unknown session, a forged CSRF token.
    await page(new Browserish(h.url), 'control plane with API key', '/workspace/keys', {
      headers: { 'x-api-key': secret! },
    });
    const stranger = new Browserish(h.url);
    stranger.cookies.set('rk_session', randomBytes(32).toString('base64url'));
    keep('unknown session cookie', stranger.cookies.get('rk_session'));
    await page(stranger, 'unknown session', '/workspace/keys', { form: { _csrf: 'x', name: 'k' } });
    await page(v, 'forged CSRF', '/workspace/keys', {
      form: { _csrf: `${Browserish.csrf(keysPage.text)}x`, name: 'k' },
    });

    // Revoke, then use the revoked key; sign out, then use the old session.
    const oldSession = v.cookies.get('rk_session')!;
    await page(v, 'revoke', `/workspace/keys/${prefix}/revoke`, { form: { _csrf: Browserish.csrf(keysPage.text) } });
    expect((await api('revoked key', '/risk_api/score/', { headers: good, body: '{"ip":"8.8.8.8"}' })).status).toBe(
      401,
    );
    await page(v, 'sign out', '/workspace/sign-out', { form: { _csrf: Browserish.csrf(keysPage.text) } });
    const after = await fetch(`${h.url}/workspace/keys`, {
      method: 'POST',
      headers: { cookie: `rk_session=${oldSession}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=x',
      redirect: 'manual',
    });
    errors.push({ what: 'signed-out session', status: after.status, text: await after.text() });
    // /metrics with its token, wrong ones, and an API key in its place.
    const scrape = await fetch(`${h.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toContain('risk_score_calls_total{tier="developer",surface="rest"} 1');
    for (const authorization of [
      `Bearer ${METRICS_TOKEN}x`,
      `Bearer ${second}`,
      `Basic ${METRICS_TOKEN}`,
      METRICS_TOKEN,
    ]) {
      const refused = await fetch(`${h.url}/metrics`, { headers: { authorization } });
      errors.push({
        what: `metrics with ${authorization.slice(0, 6)}`,
        status: refused.status,
        text: await refused.text(),
      });
      expect(refused.status).toBe(401);
    }
    await h.app.verifier.flushLastUsed();
  }, 600_000);

  it('logged the run at debug level, and no secret appears in any log line, error body or GraphQL error', () => {
    const logs = h.logs.join('');
    expect(h.logs.length, 'the run was logged').toBeGreaterThan(50);
    expect(logs).toContain('"msg":"request"');
    expect(logs).toContain('webhook rejected');
    expect(errors.length, 'error answers were collected').toBeGreaterThan(40);
    expect(secrets.size).toBeGreaterThan(12);
    const leaks: string[] = [];
    for (const [value, { name, formToken }] of secrets) {
      for (const line of h.logs) if (line.includes(value)) leaks.push(`log: ${name} in ${line.slice(0, 300)}`);
      if (formToken) continue;
      for (const e of errors)
        if (e.text.includes(value)) leaks.push(`${e.what} (${e.status}): ${name} in ${e.text.slice(0, 300)}`);
    }
    // The access lines name the key by its prefix; the request id and trace id a caller sent are kept.
    const parsed = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    const access = parsed.filter((l) => l.msg === 'request');
    expect(access.filter((l) => l.route === '/risk_api/score' && l.status === 200).map((l) => l.keyPrefix)).toEqual([
      expect.stringMatching(/^rk_[A-Za-z0-9]{8}$/),
    ]);
    expect(access.find((l) => l.requestId === 'secrets-run-1')).toMatchObject({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      workspaceId: expect.any(Number),
    });
    // The operator's and security events, each an audit line.
    const audit = parsed.filter((l) => l.audit === true).map((l) => l.msg);
    for (const event of [
      'sign-in failed',
      'signed in',
      'api key created',
      'api key revoked',
      'provider event',
      'workspace tier changed',
      'webhook rejected',
    ]) {
      expect(audit, event).toContain(event);
    }
    // PayPal access tokens are issued by the double during the run; none may be logged.
    for (const line of h.logs)
      if (/A21-[0-9a-f-]{36}/.test(line)) leaks.push(`log: PayPal access token in ${line.slice(0, 300)}`);
    console.log(
      `[secrets-in-logs] ${secrets.size} secrets searched in ${h.logs.length} log lines (${Math.round(logs.length / 1024)} KB) and ${errors.length} error answers: ${[...new Set([...secrets.values()].map((x) => x.name))].join(', ')}`,
    );
    expect(leaks).toEqual([]);
  });
});

describe(`held mail is logged without its text (${backendName})`, () => {
  let h: ControlPlaneHarness;
  beforeAll(async () => {
    h = await startControlPlane({ smtp: false });
  }, 600_000);
  afterAll(() => h?.close());

  it('names the message (id, recipient, subject, length) but never prints the link in it', async () => {
    const u = h.client();
    const email = 'held-secrets@example.com';
    expect((await u.register(email, 'a long enough password')).status).toBe(200);
    const link = await confirmationLink(h.mailTo, email);
    const token = new URL(link).searchParams.get('token')!;
    const [row] = await h.app.db.prisma.mailOutbox.findMany({ where: { to: email } });
    const held = h.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => typeof l.msg === 'string' && l.msg.startsWith('mail held'));
    expect(held).toEqual([
      expect.objectContaining({ mailId: row!.id, to: email, subject: row!.subject, length: row!.text.length }),
    ]);
    expect(h.logs.filter((l) => l.includes(token))).toEqual([]);
  });
});
