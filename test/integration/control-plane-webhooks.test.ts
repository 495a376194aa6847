import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { startControlPlane, Browserish, type ControlPlaneHarness } from '../web/harness.ts';
import { backendName } from '../helpers/backend.ts';

/** Every webhook case: forged, stale, unsigned, replayed, out of order, wrong plan/order; and the lifecycle states. */
describe(`PayPal webhooks (${backendName})`, () => {
  let h: ControlPlaneHarness;
  beforeAll(async () => { h = await startControlPlane({ smtp: false }); });
  afterAll(() => h?.close());

  /** A workspace with a pending developer request; returns its provider subscription id and workspace id. */
  async function pending(email: string) {
    const u = new Browserish(h.url);
    await u.register(email);
    const r = await u.request('/workspace/subscription', { form: { _csrf: await u.csrfOf('/workspace/subscription'), tier: 'developer' } });
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
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const forged = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.ACTIVATED', { signWith: other });
    const tampered = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.ACTIVATED', { tamper: true });
    expect([forged.status, tampered.status], JSON.stringify([forged.body, tampered.body])).toEqual([400, 400]);
    expect(await state(subId)).toEqual({ status: 'pending', tier: 'free' });
    expect(await h.app.db.prisma.providerEvent.count({ where: { id: { in: [forged.eventId, tampered.eventId] } } })).toBe(0);
  });

  it('refuses a stale delivery (transmission time outside 5 minutes) and an unsigned one', async () => {
    const { subId } = await pending('stale@example.com');
    const stale = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.ACTIVATED', { transmissionTime: new Date(Date.now() - 10 * 60_000).toISOString() });
    expect(stale.status, JSON.stringify(stale.body)).toBe(400);
    const unsigned = await fetch(`${h.url}/webhooks/paypal`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'WH-x', event_type: 'BILLING.SUBSCRIPTION.ACTIVATED', create_time: new Date().toISOString(), resource: { id: subId } }) });
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
    await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.ACTIVATED', { createTime: new Date(t0 - 60_000).toISOString() });
    const failed = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.PAYMENT.FAILED', { createTime: new Date(t0).toISOString() });
    expect(failed.body.outcome).toBe('applied');
    expect(await state(subId)).toEqual({ status: 'payment_failed', tier: 'developer' }); // tier kept while PayPal retries
    const late = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.SUSPENDED', { createTime: new Date(t0 - 30_000).toISOString() });
    expect(late.body.outcome).toBe('out_of_order');
    expect(await state(subId)).toEqual({ status: 'payment_failed', tier: 'developer' });
    await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.SUSPENDED', { createTime: new Date(t0 + 1000).toISOString() });
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

  it('keeps e-mail in the outbox and says where to find it when SMTP is not configured; resend is rate-limited', async () => {
    const { u } = await pending('nosmtp@example.com');
    const page = await u.request('/workspace/subscription');
    expect(page.text).toContain('MailOutbox');
    const held = await h.app.db.prisma.mailOutbox.findMany({ where: { to: 'nosmtp@example.com' } });
    expect(held.map((m) => m.status)).toEqual(['held']);
    expect(h.logs.some((l) => l.includes('mail held') && l.includes('checkoutnow'))).toBe(true);
    const first = await u.request('/workspace/subscription/resend', { form: { _csrf: await u.csrfOf('/workspace/subscription') } });
    const second = await u.request('/workspace/subscription/resend', { form: { _csrf: await u.csrfOf('/workspace/subscription') } });
    expect([first.status, second.status], second.text).toEqual([303, 429]);
    expect(await h.app.db.prisma.mailOutbox.count({ where: { to: 'nosmtp@example.com' } })).toBe(2);
  });
});
