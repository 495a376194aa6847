import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { KeyVerifier } from '../../src/domain/access/verifier.ts';
import { createApiKey, revokeApiKey } from '../../src/domain/access/keys.ts';

describe('KeyVerifier cache bound', () => {
  let db: Database;
  beforeAll(async () => { db = await openDatabase({ dataDir: '', inMemory: true }); await db.migrate(); });
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

  it('records last use in batches', async () => {
    const verifier = new KeyVerifier(db.prisma, 'p'.repeat(32), 5_000);
    const key = await createApiKey(db.prisma, 'p'.repeat(32), { workspace: 'ttl', name: 'used' });
    await verifier.verify(key.secret);
    expect((await db.prisma.apiKey.findUnique({ where: { prefix: key.prefix } }))?.lastUsedAt).toBeNull();
    await verifier.flushLastUsed();
    expect((await db.prisma.apiKey.findUnique({ where: { prefix: key.prefix } }))?.lastUsedAt).toBeInstanceOf(Date);
  });
});
