import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { STORES, closeStores, stopClusters } from '../helpers/counter-stores.ts';
import {
  admitSignIn,
  SIGN_IN_PER_ACCOUNT,
  SIGN_IN_PER_ACCOUNT_AND_IP,
  SIGN_IN_PER_IP,
} from '../../src/domain/accounts/sign-in-limit.ts';

afterEach(closeStores);
afterAll(stopClusters); // the file's Redis Cluster: left running, it outlived the file

/** The sign-in budgets on both counter stores: per client, per (account, client), and the account-wide ceiling. */
describe.each(STORES)('sign-in limits: %s', (_name, open) => {
  const attempts = async (n: number, email: string, ip: string, counters: Awaited<ReturnType<typeof open>>) => {
    const out = [];
    for (let i = 0; i < n; i++) out.push(await admitSignIn(counters, email, ip));
    return out;
  };

  it(`refuses a client after ${SIGN_IN_PER_ACCOUNT_AND_IP} attempts at one account, while the same account stays open to another client`, async () => {
    const counters = await open();
    const email = `${randomUUID()}@example.com`;
    const guesser = await attempts(SIGN_IN_PER_ACCOUNT_AND_IP + 1, email, '203.0.113.7', counters);
    expect(guesser.slice(0, -1).every((v) => v.allowed)).toBe(true);
    expect(guesser.at(-1)).toMatchObject({ allowed: false, scope: 'account_ip' });
    expect((guesser.at(-1) as { retryAfterS: number }).retryAfterS).toBeGreaterThan(0);
    expect(await admitSignIn(counters, email, '198.51.100.20')).toEqual({ allowed: true });
    // The guesser's other accounts are still open to it until its own per-client budget runs out.
    expect(await admitSignIn(counters, `${randomUUID()}@example.com`, '203.0.113.7')).toEqual({ allowed: true });
  });

  it(`keys IPv6 clients on their /64: addresses of one /64 share a budget`, async () => {
    const counters = await open();
    const email = `${randomUUID()}@example.com`;
    for (let i = 0; i < SIGN_IN_PER_ACCOUNT_AND_IP; i++)
      expect((await admitSignIn(counters, email, `2001:db8:1:2::${i + 1}`)).allowed).toBe(true);
    expect(await admitSignIn(counters, email, '2001:db8:1:2:ffff::1')).toMatchObject({
      allowed: false,
      scope: 'account_ip',
    });
    expect(await admitSignIn(counters, email, '2001:db8:1:3::1')).toEqual({ allowed: true });
  });

  it(`pauses an account after ${SIGN_IN_PER_ACCOUNT} attempts from many clients; refused attempts do not count toward it`, async () => {
    const counters = await open();
    const email = `${randomUUID()}@example.com`;
    const clients = SIGN_IN_PER_ACCOUNT / SIGN_IN_PER_ACCOUNT_AND_IP;
    for (let c = 0; c < clients; c++) {
      // Each client tries twice its budget: the refused half must not fill the account's ceiling early.
      const verdicts = await attempts(2 * SIGN_IN_PER_ACCOUNT_AND_IP, email, `192.0.2.${c + 1}`, counters);
      expect(verdicts.filter((v) => v.allowed)).toHaveLength(SIGN_IN_PER_ACCOUNT_AND_IP);
    }
    expect(await admitSignIn(counters, email, '198.51.100.99')).toMatchObject({ allowed: false, scope: 'account' });
  });

  it(`refuses a client after ${SIGN_IN_PER_IP} attempts across accounts`, async () => {
    const counters = await open();
    for (let i = 0; i < SIGN_IN_PER_IP; i++)
      expect((await admitSignIn(counters, `${i}-${randomUUID()}@example.com`, '203.0.113.50')).allowed).toBe(true);
    expect(await admitSignIn(counters, `${randomUUID()}@example.com`, '203.0.113.50')).toMatchObject({
      allowed: false,
      scope: 'ip',
    });
  });
});
