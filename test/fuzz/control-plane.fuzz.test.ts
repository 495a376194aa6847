import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { startControlPlane, type ControlPlaneHarness } from '../web/harness.ts';
import { backendName } from '../helpers/backend.ts';
import { PRE_CSRF_COOKIE } from '../../src/transport/web/context.ts';
import { SIGN_IN_PER_IP } from '../../src/domain/accounts/sign-in-limit.ts';
import {
  BAD_UTF8,
  FUZZ_REPORT,
  FUZZ_RUNS,
  anyJson,
  brokenJsonText,
  fuzzParameters,
  fuzzTimeout,
  oddString,
} from './arbitraries.ts';
import { Tally, closeClient, describeAnswer, send } from './client.ts';

/**
 * The control plane's public form posts (register, sign-in) and the payment provider's webhook,
 * the two places that take input from anyone. Answers: a redirect (sign-in) or a "check your inbox"
 * page (registration) on success, else a 4xx page
 * with its error notice (forms) or a JSON refusal (webhook); never a 5xx or a hang. A refused
 * form creates no account or session (nor does an accepted registration: it mails a link); a refused
 * webhook records no event and changes no subscription.
 */
describe(`control plane and webhook fuzz (${backendName}), ${FUZZ_RUNS} cases each`, () => {
  let h: ControlPlaneHarness;
  const tally = new Tally();
  const state = async () => {
    const p = h.app.db.prisma;
    const [accounts, sessions, events, requests, workspaces] = await Promise.all([
      p.account.count(),
      p.webSession.count(),
      p.providerEvent.count(),
      p.subscriptionRequest.findMany({ select: { id: true, status: true }, orderBy: { id: 'asc' } }),
      p.workspace.findMany({ select: { id: true, tier: true }, orderBy: { id: 'asc' } }),
    ]);
    return { accounts, sessions, events, requests, workspaces };
  };

  beforeAll(async () => {
    h = await startControlPlane({ smtp: false });
  });
  afterAll(async () => {
    if (FUZZ_REPORT) console.log(tally.table(`Control plane and webhook fuzz, ${backendName}, FUZZ_RUNS=${FUZZ_RUNS}`));
    closeClient();
    await h?.close();
  });

  const latin1 = (s: string) =>
    Buffer.from(s, 'utf8')
      .toString('latin1')
      .replace(/[^\t\x20-\x7e\x80-\xff]/g, '');

  const form = fc.record({
    email: fc.oneof(
      fc.emailAddress(),
      fc.emailAddress().map((e) => ` ${e.toUpperCase()} `),
      oddString(4),
      fc.constantFrom('', 'a@b', '@', 'a@b.c'.repeat(60)),
    ),
    password: fc.oneof(
      { weight: 3, arbitrary: fc.constant('correct horse battery') },
      { weight: 2, arbitrary: oddString(6) },
      { weight: 1, arbitrary: fc.constantFrom('', 'short', 'x'.repeat(10_000)) },
    ),
    csrf: fc.oneof(
      { weight: 6, arbitrary: fc.constant('match') },
      { weight: 2, arbitrary: fc.constantFrom('missing', 'wrong', 'cookie-only', 'odd-cookie') },
    ),
    extra: fc.dictionary(oddString(2), oddString(2), { maxKeys: 2 }),
    type: fc.oneof(
      { weight: 8, arbitrary: fc.constant('application/x-www-form-urlencoded') },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          null,
          'application/json',
          'multipart/form-data; boundary=x',
          'text/plain',
          'APPLICATION/X-WWW-FORM-URLENCODED; charset=utf-8',
        ),
      },
    ),
    // Mostly none (the form fields are sent); sometimes a raw body: not UTF-8, over the 16 KiB limit, or malformed encoding.
    raw: fc.oneof(
      { weight: 6, arbitrary: fc.constant(null) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          fc.constantFrom(...BAD_UTF8).map((b) => Buffer.concat([Buffer.from('email=a%40b.example&password='), b])),
          fc.constant(Buffer.from('a='.padEnd(17_000, 'x'))),
          fc.constantFrom('%', '%zz=%zz', '&&&', '=', 'email&password').map((s) => Buffer.from(s)),
        ),
      },
    ),
    origin: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(null, 'own') },
      { weight: 1, arbitrary: fc.constantFrom('https://evil.example', 'null', `http://127.0.0.1:1`) },
    ),
    cookie: fc.constantFrom(
      null,
      'rk_session=%zz',
      `rk_session=${'a'.repeat(200)}`,
      '; ;=; rk_csrf',
      'rk_csrf=%E0%A4%A',
    ),
  });

  it.each(['/workspace/register', '/workspace/sign-in'])(
    'POST %s: a new session (sign-in) or "check your inbox" (register), or a 4xx page with its notice and nothing stored',
    async (path) => {
      await fc.assert(
        fc.asyncProperty(
          form.map((f) => ({ ...f, path })),
          async (f) => {
            const token = randomBytes(24).toString('base64url');
            const fields: Record<string, string> = { ...f.extra, email: f.email, password: f.password };
            if (f.csrf === 'match' || f.csrf === 'cookie-only') fields._csrf = f.csrf === 'match' ? token : '';
            if (f.csrf === 'wrong') fields._csrf = randomBytes(24).toString('base64url');
            const cookies = [
              f.csrf === 'missing'
                ? ''
                : f.csrf === 'odd-cookie'
                  ? `${PRE_CSRF_COOKIE}=${latin1(f.email)}`
                  : `${PRE_CSRF_COOKIE}=${token}`,
              f.cookie ?? '',
            ].filter(Boolean);
            const headers: Record<string, string> = {};
            if (cookies.length) headers.cookie = cookies.join('; ');
            if (f.type !== null) headers['content-type'] = f.type;
            if (f.origin) headers.origin = f.origin === 'own' ? h.url : f.origin;
            const body = f.raw ?? Buffer.from(new URLSearchParams(fields).toString());
            const context = JSON.stringify({
              ...f,
              raw: f.raw?.toString('latin1').slice(0, 200),
              password: f.password.slice(0, 100),
            });
            const before = await state();
            const a = await send(h.url, 'POST', f.path, headers, body);
            expect(a.status, `a 5xx: ${context} → ${describeAnswer(a)}`).toBeLessThan(500);
            const after = await state();
            if (a.status === 303) {
              expect(f.path, context).toBe('/workspace/sign-in');
              expect(a.headers.location, context).toBe('/workspace/');
              expect(after.sessions, context).toBe(before.sessions + 1);
              expect(after.accounts, context).toBe(before.accounts);
              tally.add(`POST ${f.path}`, a.status, 'redirect (signed in)');
            } else if (a.status === 200) {
              // Registration only mails a link: no account and no session before it is used.
              expect(f.path, context).toBe('/workspace/register');
              expect(a.text, context).toContain('id="check-inbox"');
              expect({ accounts: after.accounts, sessions: after.sessions }, context).toEqual({
                accounts: before.accounts,
                sessions: before.sessions,
              });
              tally.add(`POST ${f.path}`, a.status, 'check your inbox');
            } else {
              expect(a.status, `${context} → ${describeAnswer(a)}`).toBeGreaterThanOrEqual(400);
              expect(String(a.headers['content-type']), context).toMatch(/^text\/html/);
              expect(a.text, `a refusal without its notice: ${context} → ${describeAnswer(a)}`).toContain(
                'role="alert"',
              );
              expect(
                { accounts: after.accounts, sessions: after.sessions },
                `a refused form stored something: ${context}`,
              ).toEqual({ accounts: before.accounts, sessions: before.sessions });
              tally.add(
                `POST ${f.path}`,
                a.status,
                (/role="alert">([^<]{0,40})/.exec(a.text)?.[1] ?? '').replace(/[|]/g, ' ').trim() || 'page with notice',
              );
            }
          },
        ),
        fuzzParameters(),
      );
      // Plus the password hashes: at most SIGN_IN_PER_IP attempts (or REGISTRATIONS_PER_CLIENT) pass the
      // per-client budget and reach scrypt at N=2^17, about half a second each here, more under parallel load.
    },
    fuzzTimeout(80) + SIGN_IN_PER_IP * 2_000,
  );

  const webhook = fc.record({
    body: fc.oneof(
      fc
        .record({
          id: fc.oneof(fc.constantFrom('WH-1', ''), oddString(2)),
          event_type: fc.constantFrom('BILLING.SUBSCRIPTION.ACTIVATED', 'BILLING.SUBSCRIPTION.CANCELLED', 'X'),
          create_time: fc.constantFrom(new Date().toISOString(), 'x'),
          resource: anyJson,
        })
        .map((v) => JSON.stringify(v)),
      anyJson.map((v) => JSON.stringify(v)),
      brokenJsonText,
      fc.constant('x'.repeat(300_000)),
    ),
    time: fc.constantFrom('now', 'now', 'stale', 'future', 'garbage', 'missing'),
    certUrl: fc.constantFrom(
      'provider',
      'provider',
      'provider-missing',
      'https://api.paypal.com/v1/notifications/certs/CERT-x',
      'http://169.254.169.254/latest/meta-data/',
      'file:///etc/passwd',
      'not a url',
      'missing',
      'https://evil.example/cert.pem',
    ),
    algo: fc.constantFrom('SHA256withRSA', 'SHA256withRSA', 'SHA1withRSA', 'none', 'missing'),
    sig: fc.oneof(
      fc.constantFrom('missing', ''),
      fc.uint8Array({ minLength: 1, maxLength: 300 }).map((b) => Buffer.from(b).toString('base64')),
      oddString(2).map(latin1),
    ),
    id: fc.oneof(fc.uuid(), fc.constantFrom('missing', 'x'.repeat(5000))),
    method: fc.oneof(
      { weight: 9, arbitrary: fc.constant('POST') },
      { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT') },
    ),
  });

  it(
    'webhook: a forged, stale, unsigned or broken delivery is refused with a coded 4xx and changes nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(webhook, async (w) => {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          const time = {
            now: new Date().toISOString(),
            stale: new Date(Date.now() - 3_600_000).toISOString(),
            future: new Date(Date.now() + 3_600_000).toISOString(),
            garbage: 'yesterday',
            missing: null,
          }[w.time];
          const certUrl =
            w.certUrl === 'provider'
              ? `${h.provider.url}/v1/notifications/certs/CERT-dev`
              : w.certUrl === 'provider-missing'
                ? `${h.provider.url}/v1/notifications/certs/nope`
                : w.certUrl;
          if (time) headers['paypal-transmission-time'] = time;
          if (certUrl !== 'missing') headers['paypal-cert-url'] = certUrl;
          if (w.algo !== 'missing') headers['paypal-auth-algo'] = w.algo;
          if (w.sig !== 'missing') headers['paypal-transmission-sig'] = w.sig;
          if (w.id !== 'missing') headers['paypal-transmission-id'] = w.id;
          const context = JSON.stringify({ ...w, body: w.body.slice(0, 300) });
          const before = await state();
          const a = await send(h.url, w.method, '/webhooks/paypal', headers, w.method === 'GET' ? undefined : w.body);
          const body = a.json as { ok?: unknown; error?: unknown; message?: unknown } | undefined;
          expect(a.status, `${context} → ${describeAnswer(a)}`).toBeGreaterThanOrEqual(400);
          expect(a.status, `${context} → ${describeAnswer(a)}`).toBeLessThan(500);
          expect(
            body?.ok === false && typeof body.error === 'string' && typeof body.message === 'string',
            `an uncoded refusal: ${context} → ${describeAnswer(a)}`,
          ).toBe(true);
          expect(await state(), `a refused webhook changed something: ${context}`).toEqual(before);
          tally.add('POST /webhooks/paypal', a.status, body!.error as string);
        }),
        fuzzParameters(),
      );
    },
    fuzzTimeout(40),
  );
});
