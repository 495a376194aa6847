import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, Browserish, seedAccount, type ControlPlaneHarness } from '../web/harness.ts';
import { backendName } from '../helpers/backend.ts';
import { REQUESTS_PER_ACCOUNT_PER_DAY } from '../../src/domain/billing/subscriptions.ts';

/**
 * What a signed-in or would-be user can make the service do to others: approval mail only to confirmed
 * addresses and once a minute for real, a bounded number of provider subscriptions, report views that a
 * cross-site link cannot spend, and wrong passwords that lock out only whoever typed them.
 */
describe(`abuse of accounts, mail and report pages (${backendName})`, () => {
  let h: ControlPlaneHarness;
  beforeAll(async () => {
    h = await startControlPlane();
  });
  afterAll(() => h?.close());
  const prisma = () => h.app.db.prisma;

  async function signedUp(email: string) {
    const u = h.client();
    await u.signUp(email);
    return u;
  }
  const requestTier = async (u: Browserish, tier = 'developer') =>
    u.request('/workspace/subscription', { form: { _csrf: await u.csrfOf('/workspace/subscription'), tier } });
  const resend = async (u: Browserish) =>
    u.request('/workspace/subscription/resend', { form: { _csrf: await u.csrfOf('/workspace/subscription') } });

  it('sends the approval e-mail again only a minute after the last one, not seconds after the request', async () => {
    const u = await signedUp('resend@example.com');
    expect((await requestTier(u)).status).toBe(303);
    const again = await resend(u);
    expect(again.status, again.text).toBe(429);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(30);
    expect(again.text).toContain('The approval e-mail was sent to this address moments ago');
    expect(
      await prisma().mailOutbox.count({ where: { to: 'resend@example.com', subject: { contains: 'Approve' } } }),
    ).toBe(1);
  });

  it(`creates at most ${REQUESTS_PER_ACCOUNT_PER_DAY} provider subscriptions per account a day, refusing the next before the provider is called`, async () => {
    const u = await signedUp('many@example.com');
    const before = h.provider.subscriptions.size;
    const statuses = [];
    for (let i = 0; i < REQUESTS_PER_ACCOUNT_PER_DAY + 2; i++)
      statuses.push((await requestTier(u, i % 2 ? 'startup' : 'developer')).status);
    expect(statuses).toEqual([...Array(REQUESTS_PER_ACCOUNT_PER_DAY).fill(303), 429, 429]);
    expect(h.provider.subscriptions.size - before).toBe(REQUESTS_PER_ACCOUNT_PER_DAY);
    const refused = await requestTier(u);
    expect(refused.text).toContain(`This account has made ${REQUESTS_PER_ACCOUNT_PER_DAY} subscription requests today`);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('sends no approval e-mail to an unconfirmed address (an account from before confirmation existed) until it is confirmed', async () => {
    await seedAccount(h.app, 'legacy@example.com', 'correct horse battery', { confirmed: false });
    const u = h.client();
    expect((await u.signIn('legacy@example.com')).status).toBe(303);
    const page = await u.request('/workspace/subscription');
    expect(page.text).toContain('id="unconfirmed"');
    const refused = await requestTier(u);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.text).toContain('Confirm your e-mail address');
    const gql = await fetch(`${h.url}/workspace/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: `rk_session=${u.cookies.get('rk_session')}`,
        'x-csrf-token': Browserish.csrf(page.text),
      },
      body: JSON.stringify({ query: 'mutation { requestSubscription(tier: "developer") { tier { code } } }' }),
    });
    expect((await gql.json()).errors[0].extensions.code).toBe('email_unverified');
    expect(
      await prisma().subscriptionRequest.count({
        where: {
          workspaceId: (await prisma().account.findUniqueOrThrow({ where: { email: 'legacy@example.com' } }))
            .workspaceId,
        },
      }),
    ).toBe(0);

    expect(
      (await u.request('/workspace/subscription/confirm-email', { form: { _csrf: Browserish.csrf(page.text) } }))
        .status,
    ).toBe(303);
    const link = /(http:\/\/\S+\/workspace\/confirm\?token=[A-Za-z0-9_-]+)/.exec(
      (await h.mailTo('legacy@example.com', /Confirm this e-mail address/)).text,
    )![1]!;
    const confirmed = await u.confirm(link);
    expect([confirmed.status, confirmed.headers.get('location')], confirmed.text).toEqual([
      303,
      '/workspace/subscription',
    ]);
    expect((await u.request('/workspace/subscription')).text).not.toContain('id="unconfirmed"');
    expect((await requestTier(u)).status).toBe(303);
    expect((await h.mailTo('legacy@example.com', /checkoutnow/)).text).toContain('Approve the subscription');
  });

  it('counts a direct report page only on the same-origin confirm, never on the GET a link from any site triggers', async () => {
    const u = await signedUp('reports@example.com');
    const used = async () => /id="report-usage">(\d+) \//.exec((await u.request('/workspace/usage')).text)?.[1];
    const path = '/workspace/reports/ip/8.8.8.8';
    for (let i = 0; i < 3; i++) {
      const viaLink = await u.request(path, {
        headers: { 'sec-fetch-site': 'cross-site', referer: 'https://elsewhere.example/' },
      });
      expect(viaLink.status).toBe(200);
      expect(viaLink.text).toContain('id="open-report"');
    }
    expect(await used()).toBe('0');
    const confirm = await u.request(path);
    const foreign = await u.request(path, {
      form: { _csrf: Browserish.csrf(confirm.text) },
      headers: { origin: 'https://elsewhere.example' },
    });
    expect(foreign.status).toBe(403);
    expect((await u.request(path, { form: {} })).status).toBe(403); // no CSRF token
    expect(await used()).toBe('0');
    const shown = await u.request(path, { form: { _csrf: Browserish.csrf(confirm.text) } });
    expect(shown.status, shown.text).toBe(200);
    expect(shown.text).toContain('Community signal');
    expect(await used()).toBe('1');
  });

  it('locks out the network address that guessed, not the owner signing in from elsewhere', async () => {
    await signedUp('target@example.com');
    const guesser = h.client();
    let last = { status: 0, text: '' };
    for (let i = 0; i < 11; i++) last = await guesser.signIn('target@example.com', `wrong password ${i}`);
    expect(last.status).toBe(429);
    expect(last.text).toContain('Too many sign-in attempts for this account from your network address');
    const owner = h.client();
    expect((await owner.signIn('target@example.com')).status).toBe(303);
  });

  it('replaces a password hash of the old cost (scrypt N=2^14) at the next sign-in', async () => {
    await signedUp('old-hash@example.com');
    const { scryptSync, randomBytes } = await import('node:crypto');
    const salt = randomBytes(16);
    const legacy = [
      'scrypt',
      16384,
      8,
      1,
      salt.toString('base64url'),
      scryptSync('correct horse battery', salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64url'),
    ].join('$');
    await prisma().account.update({ where: { email: 'old-hash@example.com' }, data: { passwordHash: legacy } });
    expect((await h.client().signIn('old-hash@example.com', 'not the password')).status).toBe(401);
    expect((await prisma().account.findUniqueOrThrow({ where: { email: 'old-hash@example.com' } })).passwordHash).toBe(
      legacy,
    );
    expect((await h.client().signIn('old-hash@example.com')).status).toBe(303);
    const rehashed = (await prisma().account.findUniqueOrThrow({ where: { email: 'old-hash@example.com' } }))
      .passwordHash!;
    expect(rehashed).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect((await h.client().signIn('old-hash@example.com')).status).toBe(303);
  });
});
