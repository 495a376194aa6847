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

  it('counts the age of an entry from when its read started: a slow read of the row before a revocation never outlives the TTL', async () => {
    let now = 4_000_000;
    let hold: Promise<void> | null = null;
    let read = false;
    // The statement reads the row, then its answer is held (a slow database or a busy event loop).
    const slow = db.prisma.$extends({
      query: {
        $queryRaw: async ({ args, query }) => {
          const rows = await query(args);
          read = true;
          await hold;
          return rows;
        },
      },
    }) as unknown as typeof db.prisma;
    const verifier = new KeyVerifier(slow, 'p'.repeat(32), 5_000, () => now);
    const key = await createApiKey(db.prisma, 'p'.repeat(32), { workspace: 'slow', name: 'k' });
    let release!: () => void;
    hold = new Promise((r) => {
      release = r;
    });
    const first = verifier.verify(key.secret); // reads the live row at 4_000_000
    await vi.waitFor(() => expect(read).toBe(true));
    await revokeApiKey(db.prisma, key.prefix); // committed after that read's snapshot
    now += 3_000; // the answer arrives 3 s later
    release();
    hold = null;
    await expect(first).resolves.toBeTruthy();
    now += 1_999; // 4_999 ms after the read began: still the entry
    await expect(verifier.verify(key.secret)).resolves.toBeTruthy();
    now += 2; // past the TTL counted from the read's start, not from its answer
    await expect(verifier.verify(key.secret)).rejects.toMatchObject({ code: 'invalid_api_key' });
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
