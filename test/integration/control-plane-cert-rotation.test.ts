import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { startControlPlane, type ControlPlaneHarness } from '../web/harness.ts';
import { backendName } from '../helpers/backend.ts';

/**
 * The webhook signing certificate behind PAYPAL-CERT-URL changes (PayPal rotates it) while the server
 * runs: the next genuine delivery fails with the cached certificate, the server fetches the URL once
 * more and accepts it. Forged deliveries naming the same URL do not make it fetch again (at most once per
 * URL per 5 minutes; the interval itself is covered by test/unit/paypal-certificates.test.ts). Its own
 * control plane: the rate limit is per URL, and other files' forged deliveries name the same URL.
 */
describe(`webhook certificate rotation (${backendName})`, () => {
  let h: ControlPlaneHarness;
  beforeAll(async () => {
    h = await startControlPlane({ smtp: false });
  });
  afterAll(() => h?.close());

  async function pending(email: string) {
    const u = h.client();
    await u.signUp(email);
    const r = await u.request('/workspace/subscription', {
      form: { _csrf: await u.csrfOf('/workspace/subscription'), tier: 'developer' },
    });
    expect(r.status, r.text).toBe(303);
    return (await h.app.db.prisma.subscriptionRequest.findFirstOrThrow({ orderBy: { id: 'desc' } })).providerId;
  }
  const certFetches = () => h.provider.requests.filter((r) => r.path === '/v1/notifications/certs/CERT-dev').length;
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();

  it('accepts deliveries signed with a rotated certificate after one refetch, and forged ones trigger no more fetches', async () => {
    const before = await pending('before-rotation@example.com');
    const first = await h.provider.sendEvent(before, 'BILLING.SUBSCRIPTION.ACTIVATED');
    expect([first.status, first.body.outcome], JSON.stringify(first.body)).toEqual([200, 'applied']);
    expect(certFetches()).toBe(1);

    h.provider.rotateCertificate();
    const after = await pending('after-rotation@example.com');
    const rotated = await h.provider.sendEvent(after, 'BILLING.SUBSCRIPTION.ACTIVATED');
    expect([rotated.status, rotated.body.outcome], JSON.stringify(rotated.body)).toEqual([200, 'applied']);
    expect(certFetches()).toBe(2);

    const forgedTarget = await pending('forged-flood@example.com');
    for (let i = 0; i < 5; i++) {
      const forged = await h.provider.sendEvent(forgedTarget, 'BILLING.SUBSCRIPTION.ACTIVATED', { signWith: other });
      expect([forged.status, forged.body.error, forged.body.message]).toEqual([
        400,
        'invalid_signature',
        'forged: signature does not verify',
      ]);
    }
    expect(certFetches()).toBe(2);
    const genuine = await h.provider.sendEvent(forgedTarget, 'BILLING.SUBSCRIPTION.ACTIVATED');
    expect([genuine.status, genuine.body.outcome]).toEqual([200, 'applied']);
    expect(certFetches()).toBe(2);
  });

  it('refuses a PAYPAL-CERT-URL on a PayPal host but another port than 443 (400, nothing fetched, nothing changes)', async () => {
    const subId = await pending('cert-port@example.com');
    for (const certUrl of [
      'https://api.paypal.com:8443/v1/notifications/certs/CERT-dev',
      'http://api.paypal.com/v1/notifications/certs/CERT-dev',
    ]) {
      const r = await h.provider.sendEvent(subId, 'BILLING.SUBSCRIPTION.ACTIVATED', { certUrl });
      expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([400, 'invalid_signature']);
      expect(r.body.message).toMatch(/is not a trusted certificate origin \(https on port 443 of a PayPal host\)/);
    }
    const row = await h.app.db.prisma.subscriptionRequest.findUniqueOrThrow({ where: { providerId: subId } });
    expect(row.status).toBe('pending');
  });
});
