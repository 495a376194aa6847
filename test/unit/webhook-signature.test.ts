import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newSecret, signatureHeader, verifySignature } from '../../src/domain/webhooks/signature.ts';

/** The signature receivers check (docs/webhooks.md, "Verifying a delivery"), from both sides. */
describe('webhook signatures', () => {
  const secret = newSecret();
  const body = '{"id":"evt_1","type":"endpoint.test","created":"2026-11-26T10:00:00.000Z","data":{}}';
  const t = 1_790_000_000;

  it('is HMAC-SHA256 of "t.body" keyed with the whole secret, in hex, after t=', () => {
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(signatureHeader(body, t, [secret])).toBe(`t=${t},v1=${expected}`);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(newSecret()).not.toBe(secret);
  });

  it('verifies with the secret, within the tolerance', () => {
    const header = signatureHeader(body, t, [secret]);
    expect(verifySignature(body, header, secret, { nowSeconds: t + 299 })).toEqual({ ok: true, timestamp: t });
    expect(verifySignature(body, header, secret, { nowSeconds: t - 299 })).toEqual({ ok: true, timestamp: t });
    expect(verifySignature(body, header, secret, { nowSeconds: t + 301 })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/tolerance/),
    });
  });

  it('refuses another secret, a changed body, a changed timestamp and malformed headers', () => {
    const header = signatureHeader(body, t, [secret]);
    const at = { nowSeconds: t };
    expect(verifySignature(body, header, newSecret(), at).ok).toBe(false);
    expect(verifySignature(body.replace('endpoint.test', 'watch.reported'), header, secret, at).ok).toBe(false);
    expect(verifySignature(body, header.replace(`t=${t}`, `t=${t + 1}`), secret, { nowSeconds: t + 1 }).ok).toBe(false);
    for (const bad of [null, '', 'v1=abc', `t=${t}`, `t=${t},v1=nothex`, `t=x,v1=${'0'.repeat(64)}`]) {
      expect(verifySignature(body, bad, secret, at).ok, String(bad)).toBe(false);
    }
  });

  it('after a rotation carries two v1 entries, each verifying with its own secret', () => {
    const next = newSecret();
    const header = signatureHeader(body, t, [next, secret]);
    expect(header.split(',').filter((p) => p.startsWith('v1='))).toHaveLength(2);
    expect(verifySignature(body, header, next, { nowSeconds: t }).ok).toBe(true);
    expect(verifySignature(body, header, secret, { nowSeconds: t }).ok).toBe(true);
    expect(verifySignature(body, header, newSecret(), { nowSeconds: t }).ok).toBe(false);
  });
});
