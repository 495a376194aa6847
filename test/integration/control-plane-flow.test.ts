import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlaneHarness } from '../web/harness.ts';
import { backendName } from '../helpers/backend.ts';

/** Register → confirmation link over SMTP → sign in → key → score refused on free → request tier → e-mail → approve → active tier → score → revoke. */
describe(`control plane flow (${backendName})`, () => {
  let h: ControlPlaneHarness;
  const b = () => h.client();
  beforeAll(async () => {
    h = await startControlPlane();
  });
  afterAll(() => h?.close());

  const score = (key: string) =>
    fetch(`${h.url}/risk_api/score/`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ ip: '8.8.8.8' }),
    });

  it('sets an HttpOnly, SameSite=Lax, expiring session cookie scoped to /workspace on sign-in after registration', async () => {
    const u = b();
    const r = await u.signUp('flags@example.com');
    expect(r.status, r.text).toBe(303);
    const set = r.headers.getSetCookie().find((c) => c.startsWith('rk_session='));
    expect(set).toMatch(/; HttpOnly/);
    expect(set).toMatch(/; SameSite=Lax/);
    expect(set).toMatch(/; Max-Age=43200; Expires=/);
    expect(set).toMatch(/; Path=\/workspace/);
    expect(set).not.toMatch(/Secure/); // served over plain http here
    expect((await u.request('/workspace/keys')).status).toBe(200);
  });

  it('refuses a state-changing form without the session CSRF token, and one from another origin', async () => {
    const u = b();
    await u.signUp('csrf@example.com');
    const none = await u.request('/workspace/keys', { form: { name: 'x' } });
    expect(none.status, none.text).toBe(403);
    const token = await u.csrfOf('/workspace/keys');
    const foreign = await u.request('/workspace/keys', {
      form: { _csrf: token, name: 'x' },
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    const ok = await u.request('/workspace/keys', { form: { _csrf: token, name: 'x' } });
    expect(ok.status, ok.text).toBe(201);
  });

  it('refuses the register form without its double-submit token', async () => {
    const r = await b().request('/workspace/register', {
      form: { email: 'nocsrf@example.com', password: 'correct horse battery' },
    });
    expect(r.status).toBe(403);
  });

  it('refuses API keys on the control plane and ignores sessions on the API', async () => {
    const u = b();
    await u.signUp('sep@example.com');
    const page = await u.request('/workspace/keys', { form: { _csrf: await u.csrfOf('/workspace/keys'), name: 'k' } });
    const secret = /id="secret">([^<]+)</.exec(page.text)![1]!;
    expect((await u.request('/workspace/keys', { headers: { 'x-api-key': secret } })).status).toBe(401);
    const api = await fetch(`${h.url}/risk_api/rate/`, {
      method: 'POST',
      headers: { cookie: `rk_session=${u.cookies.get('rk_session')}`, 'content-type': 'application/json' },
      body: '{"ip":"203.0.113.9","rating":1}',
    });
    expect(api.status).toBe(401);
  });

  it('signs out: the old cookie no longer opens pages', async () => {
    const u = b();
    await u.signUp('out@example.com');
    const old = u.cookies.get('rk_session')!;
    await u.request('/workspace/sign-out', { form: { _csrf: await u.csrfOf('/workspace/keys') } });
    const again = await fetch(`${h.url}/workspace/keys`, {
      headers: { cookie: `rk_session=${old}` },
      redirect: 'manual',
    });
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe('/workspace/sign-in');
  });

  it('limits sign-in attempts per account from one network address with a clear message', async () => {
    const u = b();
    await u.signUp('limit@example.com');
    const v = b();
    let last = { status: 0, text: '' };
    for (let i = 0; i < 11; i++) {
      const token = await v.csrfOf('/workspace/sign-in');
      last = await v.request('/workspace/sign-in', {
        form: { _csrf: token, email: 'limit@example.com', password: 'wrong password!!' },
      });
    }
    expect(last.status, last.text).toBe(429);
    expect(last.text).toContain('Too many sign-in attempts for this account');
  });

  it('goes from a key to an active paid tier through the e-mailed approval URL', async () => {
    const u = b();
    await u.signUp('buyer@example.com');
    const created = await u.request('/workspace/keys', {
      form: { _csrf: await u.csrfOf('/workspace/keys'), name: 'pipeline' },
    });
    expect(created.text).toContain('only time it is shown');
    const secret = /id="secret">([^<]+)</.exec(created.text)![1]!;
    expect((await u.request('/workspace/keys')).text).not.toContain(secret);
    expect((await score(secret)).status).toBe(403); // free tier: score not included

    const req = await u.request('/workspace/subscription', {
      form: { _csrf: await u.csrfOf('/workspace/subscription'), tier: 'developer' },
    });
    expect(req.status, req.text).toBe(303);
    const sub = await u.request('/workspace/subscription');
    const order = /<code>(RK-[0-9A-F]+)<\/code>/.exec(sub.text)?.[1];
    expect(order, sub.text).toBeDefined();
    expect(sub.text).toContain('id="request-status">pending');

    const message = await h.mailTo('buyer@example.com', /checkoutnow/); // delivered over SMTP in the background
    expect(message?.text).toContain(order!);
    const approval = /(http:\/\/127\.0\.0\.1:\d+\/checkoutnow\?ba_token=I-[A-Z0-9]+)/.exec(message!.text)?.[1];
    expect(approval, message!.text).toBeDefined();

    const approved = await fetch(approval!);
    expect(await approved.text()).toContain('webhook answered 200');
    const after = await u.request('/workspace/subscription');
    expect(after.text).toContain('id="request-status">active');
    expect(after.text).toMatch(/Current tier: <strong>Developer<\/strong> — 1000 score calls per day/);
    expect((await score(secret)).status).toBe(200);

    const prefix = secret.split('_').slice(0, 2).join('_');
    await u.request(`/workspace/keys/${prefix}/revoke`, {
      form: { _csrf: await u.csrfOf(`/workspace/keys/${prefix}/revoke`) },
    });
    expect((await score(secret)).status).toBe(401);
  });
});
