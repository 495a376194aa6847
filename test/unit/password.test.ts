import { randomBytes, scryptSync } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { WorkSlots } from '../../src/domain/accounts/work-slots.ts';
import { isAppError } from '../../src/errors.ts';

/** Password hashing: today's cost, the rehash of an old-cost hash, and the bound on concurrent derivations. */
describe('password hashing', () => {
  it('hashes with scrypt N=2^17, r=8, p=1 and verifies', async () => {
    const { hashPassword, verifyPassword } = await import('../../src/domain/accounts/password.ts');
    const stored = await hashPassword('correct horse battery');
    expect(stored).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword('correct horse battery', stored)).toEqual({ ok: true, rehash: null });
    expect(await verifyPassword('correct horse batterz', stored)).toEqual({ ok: false, rehash: null });
    expect(await verifyPassword('correct horse battery', null)).toEqual({ ok: false, rehash: null });
    expect(await verifyPassword('correct horse battery', 'scrypt$1073741824$8$1$AAAA$AAAA')).toEqual({
      ok: false,
      rehash: null,
    }); // 2^30: not believed
  });

  it("hands back a hash at today's cost when the password matched one of the old cost, and nothing when it did not", async () => {
    const { verifyPassword } = await import('../../src/domain/accounts/password.ts');
    const salt = randomBytes(16);
    const old = [
      'scrypt',
      16384,
      8,
      1,
      salt.toString('base64url'),
      scryptSync('correct horse battery', salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64url'),
    ].join('$');
    const right = await verifyPassword('correct horse battery', old);
    expect(right.ok).toBe(true);
    expect(right.rehash).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(await verifyPassword('correct horse battery', right.rehash)).toEqual({ ok: true, rehash: null });
    expect(await verifyPassword('wrong horse battery', old)).toEqual({ ok: false, rehash: null });
  });
});

describe('bounded concurrent hashing', () => {
  it('runs at most `size` jobs at once, queues `queue` more, and refuses the rest with 503 before they start', async () => {
    const slots = new WorkSlots(2, 64, 'busy');
    let running = 0,
      peak = 0,
      started = 0;
    const release: Array<() => void> = [];
    const job = () =>
      new Promise<void>((resolve) => {
        started++;
        running++;
        peak = Math.max(peak, running);
        release.push(() => {
          running--;
          resolve();
        });
      });
    const all = Array.from({ length: 100 }, () =>
      slots.run(job).then(
        () => 'done',
        (e) => (isAppError(e) ? `${e.status} ${e.code} ${e.headers?.['retry-after']}` : String(e)),
      ),
    );
    await new Promise((r) => setImmediate(r));
    expect(started).toBe(2);
    while (release.length) {
      release.shift()!();
      await new Promise((r) => setImmediate(r));
    }
    const outcomes = await Promise.all(all);
    expect(outcomes.filter((o) => o === 'done')).toHaveLength(66);
    expect(outcomes.filter((o) => o === '503 service_unavailable 5')).toHaveLength(34);
    expect(peak).toBe(2);
  });

  it('sends every scrypt derivation through those slots: 80 sign-ins at once never hold more than two 128 MiB work areas', async () => {
    vi.resetModules();
    let running = 0,
      peak = 0;
    const pending: Array<() => void> = [];
    vi.doMock('node:crypto', async (importOriginal) => {
      const real = await importOriginal<typeof import('node:crypto')>();
      return {
        ...real,
        scrypt: (
          _pw: unknown,
          _salt: unknown,
          len: number,
          _opts: unknown,
          cb: (e: Error | null, key: Buffer) => void,
        ) => {
          running++;
          peak = Math.max(peak, running);
          pending.push(() => {
            running--;
            cb(null, Buffer.alloc(len));
          });
        },
      };
    });
    try {
      const { verifyPassword } = await import('../../src/domain/accounts/password.ts');
      // (the modules were loaded afresh: this AppError is another class than the one imported above)
      const all = Array.from({ length: 80 }, () =>
        verifyPassword('correct horse battery', null).then(
          () => 'checked',
          (e: { code?: string }) => e.code ?? String(e),
        ),
      );
      for (let i = 0; i < 200 && (pending.length || running); i++) {
        pending.shift()?.();
        await new Promise((r) => setImmediate(r));
      }
      const outcomes = await Promise.all(all);
      expect(peak).toBe(2);
      expect(outcomes.filter((o) => o === 'checked')).toHaveLength(66);
      expect(outcomes.filter((o) => o === 'service_unavailable')).toHaveLength(14);
    } finally {
      vi.doUnmock('node:crypto');
      vi.resetModules();
    }
  });
});
