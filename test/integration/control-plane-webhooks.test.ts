import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { startControlPlane, type Browserish, type ControlPlaneHarness } from '../web/harness.ts';
import { backendName } from '../helpers/backend.ts';
import { createRootCa } from '../../src/cli/dev-pki.ts';

const PAYPAL_NAME = 'messageverificationcerts.paypal.com';

/** Polls `read` until `done` holds (15 s at most); returns the last value read, so a failed expectation shows it. */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  let v = await read();
  while (!done(v) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    v = await read();
  }
  return v;
}

/** Every webhook case: forged, stale, unsigned, replayed, out of order, wrong plan/order; and the lifecycle states. */
describe(`PayPal webhooks (${backendName})`, () => {
  let h: ControlPlaneHarness;
  beforeAll(async () => {
    h = await startControlPlane({ smtp: false });
  });
  afterAll(() => h?.close());

  /** A workspace with a pending developer request; returns its provider subscription id and workspace id. */
  async function pending(email: string) {
    const u = h.client();
    await u.signUp(email);
    const r = await u.request('/workspace/subscription', {
      form: { _csrf: await u.csrfOf('/workspace/subscription'), tier: 'developer' },
    });
    expect(r.status, r.text).toBe(303);
    const row = await h.app.db.prisma.subscriptionRequest.findFirstOrThrow({ orderBy: { id: 'desc' } });
    return { u, subId: row.providerId, workspaceId: row.workspaceId };
  }
  const state = async (subId: string) => {
    const r = await h.app.db.prisma.subscriptionRequest.findUniqueOrThrow({ where: { providerId: subId } });
    const ws = await h.app.db.prisma.workspace.findUniqueOrThrow({ where: { id: r.workspaceId } });
    return { status: r.status, tier: ws.tier };
  };

  it('refuses a forged signature (other key) and a tampered body with 400, changing nothing', async () => {
    const { subId } = await pending('forged@example.com');
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const forged = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.ACTIVATED', { signWith: other });
    const tampered = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.ACTIVATED', { tamper: true });
    expect([forged.status, tampered.status], JSON.stringify([forged.body, tampered.body])).toEqual([400, 400]);
    expect(await state(subId)).toEqual({ status: 'pending', tier: 'free' });
    expect(
      await h.app.db.prisma.providerEvent.count({ where: { id: { in: [forged.eventId, tampered.eventId] } } }),
    ).toBe(0);
  });

  it('refuses a stale delivery (transmission time outside 5 minutes) and an unsigned one', async () => {
    const { subId } = await pending('stale@example.com');
    const stale = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.ACTIVATED', {
      transmissionTime: new Date(Date.now() - 10 * 60_000).toISOString(),
    });
    expect(stale.status, JSON.stringify(stale.body)).toBe(400);
    const unsigned = await fetch(`${h.url}/webhooks/paypal`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'WH-x',
        event_type: 'BILLING.SUBSCRIPTION.ACTIVATED',
        create_time: new Date().toISOString(),
        resource: { id: subId },
      }),
    });
    expect(unsigned.status).toBe(400);
    expect(await state(subId)).toEqual({ status: 'pending', tier: 'free' });
  });

  it('applies an event once: a replay of the same id changes nothing', async () => {
    const { subId } = await pending('replay@example.com');
    const first = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.ACTIVATED', { id: 'WH-REPLAY-1' });
    expect(first.body.outcome).toBe('applied');
    const cancel = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.CANCELLED');
    expect(await state(subId)).toEqual({ status: 'cancelled', tier: 'free' });
    const replay = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.ACTIVATED', { id: 'WH-REPLAY-1' });
    expect([cancel.body.outcome, replay.status, replay.body.outcome]).toEqual(['applied', 200, 'replayed']);
    expect(await state(subId)).toEqual({ status: 'cancelled', tier: 'free' });
  });

  it('does not regress on out-of-order events (an older event arriving late is ignored)', async () => {
    const { subId } = await pending('order@example.com');
    const t0 = Date.now();
    await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.ACTIVATED', {
      createTime: new Date(t0 - 60_000).toISOString(),
    });
    const failed = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.PAYMENT.FAILED', {
      createTime: new Date(t0).toISOString(),
    });
    expect(failed.body.outcome).toBe('applied');
    expect(await state(subId)).toEqual({ status: 'payment_failed', tier: 'developer' }); // tier kept while PayPal retries
    const late = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.SUSPENDED', {
      createTime: new Date(t0 - 30_000).toISOString(),
    });
    expect(late.body.outcome).toBe('out_of_order');
    expect(await state(subId)).toEqual({ status: 'payment_failed', tier: 'developer' });
    await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.SUSPENDED', {
      createTime: new Date(t0 + 1000).toISOString(),
    });
    expect(await state(subId)).toEqual({ status: 'suspended', tier: 'free' });
  });

  it('logs and ignores an event whose plan or order code does not match the request', async () => {
    const { subId } = await pending('plan@example.com');
    const plan = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.ACTIVATED', { planId: 'P-START' });
    const order = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.ACTIVATED', { customId: 'RK-OTHER' });
    expect([plan.status, plan.body.outcome, order.body.outcome]).toEqual([200, 'mismatch', 'mismatch']);
    expect(await state(subId)).toEqual({ status: 'pending', tier: 'free' });
    expect(h.logs.some((l) => l.includes('does not match its subscription request'))).toBe(true);
  });

  describe('certificate chain of PAYPAL-CERT-URL', () => {
    /** Serves `chain` under a new name and sends an ACTIVATED event signed with `key`, for a fresh pending request. */
    async function deliverWith(email: string, chain: string, key: string) {
      const { subId } = await pending(email);
      const name = `CERT-${email.split('@')[0]}`;
      h.provider.serveCertificate(name, chain);
      const r = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.ACTIVATED', { cert: name, signWith: key });
      return { subId, r, stored: await h.app.db.prisma.providerEvent.count({ where: { id: r.eventId } }) };
    }

    it('refuses a chain that does not reach a trusted root, even one naming PayPal and served with its own root (400, nothing changes)', async () => {
      const rogue = createRootCa('Rogue Root CA');
      const inter = rogue.issue({ cn: 'Rogue Intermediate CA', ca: true });
      const leaf = inter.issue({ cn: PAYPAL_NAME, dns: [PAYPAL_NAME] });
      const { subId, r, stored } = await deliverWith(
        'rogue@example.com',
        leaf.cert + inter.cert + rogue.cert,
        leaf.key,
      );
      expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([400, 'invalid_signature']);
      expect(r.body.message).toMatch(/does not chain to a trusted root/);
      expect(await state(subId)).toEqual({ status: 'pending', tier: 'free' });
      expect(stored).toBe(0);
    });

    it("refuses a leaf from the trusted CA that does not name PayPal's message-verification host (400)", async () => {
      const inter = h.provider.ca.issue({ cn: 'Dev Intermediate B', ca: true });
      for (const [i, name] of ['webhooks.example.com', `${PAYPAL_NAME}.evil.test`].entries()) {
        const leaf = inter.issue({ cn: name, dns: [name] });
        const { subId, r, stored } = await deliverWith(`subject${i}@example.com`, leaf.cert + inter.cert, leaf.key);
        expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([400, 'invalid_signature']);
        expect(r.body.message).toContain(`names ${name}, not ${PAYPAL_NAME}`);
        expect(await state(subId)).toEqual({ status: 'pending', tier: 'free' });
        expect(stored).toBe(0);
      }
    });

    it('refuses a chain whose intermediate has expired, though the leaf is current (400)', async () => {
      const inter = h.provider.ca.issue({
        cn: 'Expired Intermediate',
        ca: true,
        notBefore: new Date(Date.now() - 400 * 86_400_000),
        notAfter: new Date(Date.now() - 30 * 86_400_000),
      });
      const leaf = inter.issue({ cn: PAYPAL_NAME, dns: [PAYPAL_NAME] });
      const { subId, r, stored } = await deliverWith('expired@example.com', leaf.cert + inter.cert, leaf.key);
      expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([400, 'invalid_signature']);
      expect(r.body.message).toMatch(/intermediate certificate Expired Intermediate is not valid now/);
      expect(await state(subId)).toEqual({ status: 'pending', tier: 'free' });
      expect(stored).toBe(0);
    });

    it('accepts a valid chain to the trusted root (sandbox name, leaf + intermediate as PayPal serves them)', async () => {
      const sandbox = 'messageverificationcerts.sandbox.paypal.com';
      const inter = h.provider.ca.issue({ cn: 'Dev Intermediate C', ca: true });
      const leaf = inter.issue({ cn: sandbox, dns: [sandbox] });
      const { subId, r, stored } = await deliverWith('validchain@example.com', leaf.cert + inter.cert, leaf.key);
      expect([r.status, r.body.outcome], JSON.stringify(r.body)).toEqual([200, 'applied']);
      expect(await state(subId)).toEqual({ status: 'active', tier: 'developer' });
      expect(stored).toBe(1);
    });
  });

  describe('a newer subscription supersedes the active one, which is cancelled at PayPal', () => {
    /** Requests `tier` for the signed-in user and approves it at the dev provider (ACTIVATED webhook); returns the subscription id. */
    async function subscribe(u: Browserish, email: string, tier: string) {
      const r = await u.request('/workspace/subscription', {
        form: { _csrf: await u.csrfOf('/workspace/subscription'), tier },
      });
      expect(r.status, r.text).toBe(303);
      const { workspaceId } = await h.app.db.prisma.account.findUniqueOrThrow({ where: { email } });
      return h.app.db.prisma.subscriptionRequest.findFirstOrThrow({ where: { workspaceId }, orderBy: { id: 'desc' } });
    }
    async function approve(approvalUrl: string) {
      const page = await (await fetch(approvalUrl)).text();
      expect(page).toContain('webhook answered 200');
    }
    const cancellation = (providerId: string) =>
      h.app.db.prisma.providerCancellation.findFirst({ where: { providerId } });
    /** Makes a waiting retry due now (the time a backoff takes, skipped). */
    const makeDue = (providerId: string) =>
      h.app.db.prisma.providerCancellation.updateMany({
        where: { providerId, status: 'pending' },
        data: { nextAttemptAt: new Date() },
      });

    it("two consecutive upgrades: the first subscription is cancelled at the provider, the tier is the second one's", async () => {
      const email = 'upgrade@example.com';
      const u = h.client();
      await u.signUp(email);
      const first = await subscribe(u, email, 'developer');
      await approve(first.approvalUrl);
      expect(await state(first.providerId)).toEqual({ status: 'active', tier: 'developer' });
      const second = await subscribe(u, email, 'startup');
      await approve(second.approvalUrl);

      const done = await until(
        () => cancellation(first.providerId),
        (c) => c?.status === 'cancelled',
      );
      expect(done, JSON.stringify(done)).toMatchObject({ status: 'cancelled', attempts: 1, lastError: null });
      await h.provider.idle(); // the CANCELLED webhook PayPal sends after the cancel has been answered
      expect(h.provider.subscriptions.get(first.providerId)?.status).toBe('CANCELLED');
      expect(h.provider.subscriptions.get(second.providerId)?.status).toBe('ACTIVE');
      expect(h.provider.cancelCalls.filter((c) => c.id === first.providerId)).toEqual([
        { id: first.providerId, reason: `Replaced by order ${second.orderCode} (startup tier)`, status: 204 },
      ]);
      expect(h.provider.cancelCalls.some((c) => c.id === second.providerId)).toBe(false);
      // The CANCELLED event of the superseded subscription was applied, and left the tier alone.
      expect(await state(first.providerId)).toEqual({ status: 'cancelled', tier: 'startup' });
      expect(await state(second.providerId)).toEqual({ status: 'active', tier: 'startup' });
    });

    it('PayPal down during the cancellation: the webhook is still acknowledged, the cancellation is kept and retried until it is made', async () => {
      const email = 'outage@example.com';
      const u = h.client();
      await u.signUp(email);
      const first = await subscribe(u, email, 'developer');
      await approve(first.approvalUrl);
      const second = await subscribe(u, email, 'startup');
      h.provider.setOutage(true);
      try {
        await approve(second.approvalUrl); // acknowledged 200 although the cancel call cannot succeed
        expect(await state(second.providerId)).toEqual({ status: 'active', tier: 'startup' });
        expect(await state(first.providerId)).toEqual({ status: 'superseded', tier: 'startup' });
        const failed = await until(
          () => cancellation(first.providerId),
          (c) => (c?.attempts ?? 0) >= 1,
        );
        expect(failed, JSON.stringify(failed)).toMatchObject({ status: 'pending', attempts: 1 });
        expect(failed!.lastError).toContain('503');
        expect(failed!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now()); // waits its backoff
        // Later, still down: the server's own retry round tries again and keeps it.
        await makeDue(first.providerId);
        const again = await until(
          () => cancellation(first.providerId),
          (c) => (c?.attempts ?? 0) >= 2,
        );
        expect(again, JSON.stringify(again)).toMatchObject({ status: 'pending', attempts: 2 });
        expect(h.provider.subscriptions.get(first.providerId)?.status).toBe('ACTIVE');
      } finally {
        h.provider.setOutage(false);
      }
      await makeDue(first.providerId);
      const done = await until(
        () => cancellation(first.providerId),
        (c) => c?.status === 'cancelled',
      );
      expect(done, JSON.stringify(done)).toMatchObject({ status: 'cancelled', attempts: 3, lastError: null });
      await h.provider.idle();
      expect(h.provider.subscriptions.get(first.providerId)?.status).toBe('CANCELLED');
      expect(h.provider.cancelCalls.filter((c) => c.id === first.providerId).map((c) => c.status)).toEqual([204]);
      expect(await state(first.providerId)).toEqual({ status: 'cancelled', tier: 'startup' });
      expect(await state(second.providerId)).toEqual({ status: 'active', tier: 'startup' });
    });

    it('a superseded subscription PayPal has already stopped is recorded as inactive, not retried', async () => {
      const email = 'stopped@example.com';
      const u = h.client();
      await u.signUp(email);
      const first = await subscribe(u, email, 'developer');
      await approve(first.approvalUrl);
      h.provider.subscriptions.get(first.providerId)!.status = 'EXPIRED'; // its EXPIRED webhook has not reached us yet
      const second = await subscribe(u, email, 'startup');
      await approve(second.approvalUrl);
      const done = await until(
        () => cancellation(first.providerId),
        (c) => c?.status !== 'pending' && c !== null,
      );
      expect(done, JSON.stringify(done)).toMatchObject({ status: 'inactive', attempts: 1, lastError: null });
      expect(h.provider.cancelCalls.filter((c) => c.id === first.providerId).map((c) => c.status)).toEqual([422]);
      expect(await state(second.providerId)).toEqual({ status: 'active', tier: 'startup' });
    });
  });

  it('keeps e-mail in the outbox and says where to find it when SMTP is not configured; resend is rate-limited', async () => {
    const { u } = await pending('nosmtp@example.com');
    const page = await u.request('/workspace/subscription');
    expect(page.text).toContain('MailOutbox');
    expect(page.text).toContain('risk-api mail held');
    const held = await h.app.db.prisma.mailOutbox.findMany({
      where: { to: 'nosmtp@example.com' },
      orderBy: { id: 'asc' },
    });
    expect(held.map((m) => m.status)).toEqual(['held', 'held']); // the confirmation link, then the approval link
    // The log names each held message but never prints its text: the links in it sign someone in or approve a payment.
    const logged = h.logs
      .map((l) => JSON.parse(l))
      .filter((l) => /^mail held/.test(l.msg) && l.to === 'nosmtp@example.com');
    expect(logged.map((l) => ({ mailId: l.mailId, subject: l.subject, length: l.length }))).toEqual(
      held.map((m) => ({ mailId: m.id, subject: m.subject, length: m.text.length })),
    );
    expect(h.logs.filter((l) => l.includes('checkoutnow') || l.includes('/workspace/confirm?token='))).toEqual([]);
    const resend = await u.request('/workspace/subscription/resend', {
      form: { _csrf: await u.csrfOf('/workspace/subscription') },
    });
    expect(resend.status, resend.text).toBe(429); // the approval e-mail went out moments ago
    expect(await h.app.db.prisma.mailOutbox.count({ where: { to: 'nosmtp@example.com' } })).toBe(2);
  });
});
