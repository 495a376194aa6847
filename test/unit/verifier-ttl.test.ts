import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KeyVerifier } from '../../src/domain/access/verifier.ts';
import { createApiKey, revokeApiKey } from '../../src/domain/access/keys.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/publishing-fixtures.ts';

describe('KeyVerifier cache bound', () => {
  // A copy of the migrated template: an in-memory database ran initdb and every migration, most of this file's CPU.
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase();
  });
  afterAll(() => db?.close());

  it('keeps accepting a revoked key only until the TTL has passed, in a process that did not revoke it', async () => {
    let now = 1_000_000;
    const verifier = new KeyVerifier(db.prisma, 'p'.repeat(32), 5_000, () => now);
    const key = await createApiKey(db.prisma, 'p'.repeat(32), { workspace: 'ttl', name: 'k' });
    await expect(verifier.verify(key.secret)).resolves.toMatchObject({ keyPrefix: key.prefix, workspaceName: 'ttl' });
    await revokeApiKey(db.prisma, key.prefix); // as another process would
    now += 4_999;
    await expect(verifier.verify(key.secret)).resolves.toBeTruthy();
    now += 2;
    await expect(verifier.verify(key.secret)).rejects.toMatchObject({ code: 'invalid_api_key' });
  });

  it('answers many concurrent calls for an expired key with ONE database read, and never caches a read an invalidation overtook', async () => {
    let now = 2_000_000;
    let reads = 0;
    // Count the verifier's statements only (the same client also serves the test's own writes).
    const counting = db.prisma.$extends({
      query: {
        $queryRaw: ({ args, query }) => {
          reads++;
          return query(args);
        },
      },
    }) as unknown as typeof db.prisma;
    const verifier = new KeyVerifier(counting, 'p'.repeat(32), 5_000, () => now);
    const key = await createApiKey(db.prisma, 'p'.repeat(32), { workspace: 'herd', name: 'k' });
    const answers = await Promise.all(Array.from({ length: 32 }, () => verifier.verify(key.secret)));
    expect(answers.every((v) => v.keyPrefix === key.prefix)).toBe(true);
    expect(reads).toBe(1);
    now += 5_001; // expired: the next burst shares one fresh read again
    await Promise.all(Array.from({ length: 32 }, () => verifier.verify(key.secret)));
    expect(reads).toBe(2);

    // a revocation announced while a read is in flight: that read may answer its callers, but is not cached
    now += 5_001;
    const inFlight = verifier.verify(key.secret);
    await revokeApiKey(db.prisma, key.prefix);
    verifier.invalidate(key.prefix);
    await inFlight.catch(() => {});
    await expect(verifier.verify(key.secret)).rejects.toMatchObject({ code: 'invalid_api_key' });
  });

  it('re-reads a key in use in the background past half its TTL: no call waits for that read, and a revocation still reaches within the TTL', async () => {
    let now = 3_000_000;
    let reads = 0;
    let hold: Promise<void> | null = null;
    // Each of the verifier's statements is counted, and waits while `hold` is set.
    const counting = db.prisma.$extends({
      query: {
        $queryRaw: async ({ args, query }) => {
          reads++;
          await hold;
          return query(args);
        },
      },
    }) as unknown as typeof db.prisma;
    const verifier = new KeyVerifier(counting, 'p'.repeat(32), 5_000, () => now);
    const key = await createApiKey(db.prisma, 'p'.repeat(32), { workspace: 'ahead', name: 'k' });
    await verifier.verify(key.secret);
    now += 2_000; // under half the TTL: the entry alone
    await verifier.verify(key.secret);
    expect(reads).toBe(1);

    let release!: () => void;
    hold = new Promise((r) => {
      release = r;
    });
    await revokeApiKey(db.prisma, key.prefix); // as another process would
    now += 1_000; // past half the TTL: answered from the entry while the row is read again
    await expect(verifier.verify(key.secret)).resolves.toMatchObject({ keyPrefix: key.prefix });
    expect(reads).toBe(2);
    await expect(verifier.verify(key.secret)).resolves.toBeTruthy(); // still the entry; the read in flight is shared
    expect(reads).toBe(2);
    release();
    hold = null;
    await vi.waitFor(() => expect(verifier.verify(key.secret)).rejects.toMatchObject({ code: 'invalid_api_key' }));
    expect(reads).toBe(2); // the background read refreshed the entry: no call read it again
  });

  it('records last use in batches', async () => {
    const verifier = new KeyVerifier(db.prisma, 'p'.repeat(32), 5_000);
    const key = await createApiKey(db.prisma, 'p'.repeat(32), { workspace: 'ttl', name: 'used' });
    await verifier.verify(key.secret);
    expect((await db.prisma.apiKey.findUnique({ where: { prefix: key.prefix } }))?.lastUsedAt).toBeNull();
    await verifier.flushLastUsed();
    expect((await db.prisma.apiKey.findUnique({ where: { prefix: key.prefix } }))?.lastUsedAt).toBeInstanceOf(Date);
  });
});
