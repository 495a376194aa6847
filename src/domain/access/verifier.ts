import type { PrismaClient } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';
import { hashApiKey, keyPrefix, sameHash } from './key-format.ts';

/** Who is calling: resolved from a verified API key. */
export type Viewer = {
  workspaceId: number;
  workspaceName: string;
  tier: string;
  apiKeyId: number;
  keyName: string;
  keyPrefix: string;
};

type CacheEntry = { at: number; row: null | { id: number; secretHash: string; name: string; revoked: boolean; workspaceId: number; workspaceName: string; tier: string } };

// Compared against when the prefix is unknown, so a miss costs the same as a wrong secret.
const DUMMY_HASH = '0'.repeat(64);

/**
 * Verifies API keys with a short in-process cache. A revocation (or tier change) reaches
 * every process within `ttlMs`, because each process re-reads the key row after that long.
 * `lastUsedAt` is written in batches, not per request.
 */
export class KeyVerifier {
  private cache = new Map<string, CacheEntry>();
  private used = new Map<number, Date>();
  private flushing: Promise<void> | null = null;

  constructor(private prisma: PrismaClient, private pepper: string, private ttlMs: number, private now = () => Date.now()) {}

  async verify(rawKey: string): Promise<Viewer> {
    const prefix = keyPrefix(rawKey);
    if (prefix === null) throw invalidKey();
    const entry = await this.lookup(prefix);
    const ok = sameHash(hashApiKey(this.pepper, rawKey), entry.row?.secretHash ?? DUMMY_HASH);
    if (!ok || !entry.row || entry.row.revoked) throw invalidKey();
    this.used.set(entry.row.id, new Date(this.now()));
    return {
      workspaceId: entry.row.workspaceId, workspaceName: entry.row.workspaceName, tier: entry.row.tier,
      apiKeyId: entry.row.id, keyName: entry.row.name, keyPrefix: prefix,
    };
  }

  private async lookup(prefix: string): Promise<CacheEntry> {
    const cached = this.cache.get(prefix);
    if (cached && this.now() - cached.at < this.ttlMs) return cached;
    const key = await this.prisma.apiKey.findUnique({ where: { prefix }, include: { workspace: true } });
    const entry: CacheEntry = {
      at: this.now(),
      row: key && {
        id: key.id, secretHash: key.secretHash, name: key.name, revoked: key.revokedAt !== null,
        workspaceId: key.workspaceId, workspaceName: key.workspace.name, tier: key.workspace.tier,
      },
    };
    if (this.cache.size > 50_000) this.cache.clear(); // bounded: garbage prefixes cannot grow it forever
    this.cache.set(prefix, entry);
    return entry;
  }

  /** Forget cached rows now (this process); other processes follow within ttlMs. */
  invalidate(prefix?: string) { if (prefix) this.cache.delete(prefix); else this.cache.clear(); }

  /** Persist last-used times collected since the previous flush. */
  async flushLastUsed(): Promise<void> {
    if (this.flushing) return this.flushing;
    const batch = [...this.used];
    this.used.clear();
    this.flushing = (async () => {
      for (const [id, at] of batch) {
        await this.prisma.apiKey.updateMany({ where: { id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: at } }] }, data: { lastUsedAt: at } });
      }
    })().finally(() => { this.flushing = null; });
    return this.flushing;
  }
}

function invalidKey() {
  return new AppError('invalid_api_key', 'The API key is not valid: it is unknown, malformed or revoked.');
}
