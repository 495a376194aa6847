import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, confirmationLink, seedAccount, type ControlPlaneHarness } from '../web/harness.ts';
import { backendName } from '../helpers/backend.ts';
import { issueConfirmation } from '../../src/domain/accounts/email-confirmation.ts';
import { hashPassword } from '../../src/domain/accounts/password.ts';

/**
 * Registration confirms the address before an account exists (a single-use, expiring link, stored
 * hashed, used together with the password), answers the same whether or not the address has an account,
 * and is throttled per client and per address; confirmation mail goes through a real SMTP conversation
 * (the harness's server).
 */
describe(`registration with a confirmed address (${backendName})`, () => {
  let h: ControlPlaneHarness;
  beforeAll(async () => {
    h = await startControlPlane();
  });
  afterAll(() => h?.close());
  const accounts = (email: string) => h.app.db.prisma.account.count({ where: { email } });
  /** The registration answer with the address typed taken out: what a stranger can compare. */
  const shape = (r: { status: number; text: string; headers: Headers }, email: string) => ({
    status: r.status,
    body: r.text.replaceAll(email, '<email>').replace(/name="_csrf" value="[^"]+"/g, '_csrf'),
    cookies: r.headers.getSetCookie().map((c) => c.split('=')[0]),
  });

  it('creates no account and no session until the e-mailed link is used with the password; the link works once', async () => {
    const u = h.client();
    const r = await u.register('new@example.com');
    expect(r.status, r.text).toBe(200);
    expect(r.text).toContain('id="check-inbox"');
    expect(u.cookies.has('rk_session')).toBe(false);
    expect(await accounts('new@example.com')).toBe(0);

    const link = await confirmationLink(h.mailTo, 'new@example.com');
    const token = new URL(link).searchParams.get('token')!;
    const stored = await h.app.db.prisma.emailVerification.findMany({ where: { email: 'new@example.com' } });
    expect(stored.map((s) => s.id)).toEqual([createHash('sha256').update(token).digest('hex')]); // only its hash is kept
    expect((await u.request(new URL(link).pathname + new URL(link).search)).status).toBe(200); // GET (a mail scanner) uses nothing
    expect((await u.confirm(link, 'not the password')).status).toBe(401); // the link alone opens nothing
    expect(await accounts('new@example.com')).toBe(0);

    const confirmed = await u.confirm(link);
    expect(confirmed.status, confirmed.text).toBe(303);
    expect(u.cookies.has('rk_session')).toBe(true);
    expect(await h.app.db.prisma.account.findUniqueOrThrow({ where: { email: 'new@example.com' } })).toMatchObject({
      emailVerifiedAt: expect.any(Date),
    });
    expect((await u.request('/workspace/keys')).status).toBe(200);

    const again = await h.client().confirm(link);
    expect(again.status).toBe(400);
    expect(again.text).toContain('was used already');
    expect(await accounts('new@example.com')).toBe(1);
  });

  it('makes a link someone else registered with your address useless to both of you', async () => {
    const prisma = h.app.db.prisma;
    // Someone registered victim@ first, with a password of their own (its link went to the victim's inbox).
    const planted = `${h.url}/workspace/confirm?token=${await issueConfirmation(prisma, 'victim@example.com', await hashPassword('the intruder password'))}`;
    const victim = h.client();
    expect((await victim.register('victim@example.com', 'the victim password')).status).toBe(200);
    const own = await confirmationLink(h.mailTo, 'victim@example.com');
    expect((await victim.confirm(planted, 'the victim password')).status).toBe(401);
    expect((await h.client().confirm(own, 'the intruder password')).status).toBe(401);
    expect((await victim.confirm(own, 'the victim password')).status).toBe(303);
    const late = await h.client().confirm(planted, 'the intruder password');
    expect(late.text).toContain('already has an account'); // the planted link changes nothing now
    expect((await h.client().signIn('victim@example.com', 'the intruder password')).status).toBe(401);
  });

  it('refuses an expired link and a made-up one', async () => {
    const u = h.client();
    await u.register('late@example.com');
    const link = await confirmationLink(h.mailTo, 'late@example.com');
    await h.app.db.prisma.emailVerification.updateMany({
      where: { email: 'late@example.com' },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await u.confirm(link)).status).toBe(400);
    expect((await u.confirm(`${h.url}/workspace/confirm?token=${'A'.repeat(43)}`)).status).toBe(400);
    expect((await u.confirm(`${h.url}/workspace/confirm?token=%00'`)).status).toBe(400);
    expect(await accounts('late@example.com')).toBe(0);
  });

  it('answers a registration of an existing address exactly like a new one, mails its owner, and changes nothing', async () => {
    await seedAccount(h.app, 'owner@example.com', 'the owner password');
    const known = await h.client().register('owner@example.com', 'an intruder password');
    const fresh = await h.client().register('nobody@example.com', 'an intruder password');
    expect(shape(known, 'owner@example.com')).toEqual(shape(fresh, 'nobody@example.com'));

    const notice = await h.mailTo('owner@example.com', /tried to create/);
    expect(notice.text).toContain('Nothing was changed');
    expect(notice.text).not.toMatch(/confirm\?token=/); // the owner's address is confirmed: nothing to confirm
    expect((await h.client().signIn('owner@example.com', 'an intruder password')).status).toBe(401);
    expect((await h.client().signIn('owner@example.com', 'the owner password')).status).toBe(303);
    expect(await accounts('owner@example.com')).toBe(1);
  });

  it('sends one confirmation e-mail a minute per address, known or not, with the same 429', async () => {
    await seedAccount(h.app, 'twice@example.com');
    const refusals = [];
    for (const email of ['twice@example.com', 'twice-new@example.com']) {
      expect((await h.client().register(email)).status).toBe(200);
      const second = await h.client().register(email);
      expect(second.status, second.text).toBe(429);
      const wait = Number(second.headers.get('retry-after'));
      expect(wait).toBeGreaterThan(30); // one minute from the message just sent, not from a clock-aligned window
      expect(wait).toBeLessThanOrEqual(60);
      refusals.push(shape(second, email).body.replace(/\d+ seconds/, 'N seconds'));
    }
    expect(refusals[0]).toBe(refusals[1]);
    expect(refusals[0]).toContain('A confirmation e-mail was sent to this address moments ago');
  });

  it('takes at most 10 registrations an hour from one network address: 429 rate_limited with Retry-After', async () => {
    const u = h.client();
    for (let i = 0; i < 10; i++) {
      const r = await u.register(`burst${i}@example.com`);
      expect(r.status, `registration ${i}: ${r.text}`).toBe(200);
    }
    const refused = await u.register('burst10@example.com');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.text).toContain('Too many registrations from your network address');
    expect(await h.app.db.prisma.emailVerification.count({ where: { email: 'burst10@example.com' } })).toBe(0);
    expect((await h.client().register('burst10@example.com')).status).toBe(200); // someone else, elsewhere
  });
});
