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

type KeyRow = {
  id: number;
  secretHash: string;
  name: string;
  revoked: boolean;
  workspaceId: number;
  workspaceName: string;
  tier: string;
};
type CacheEntry = { at: number; row: KeyRow | null };

// Compared against when the prefix is unknown, so a miss costs the same as a wrong secret.
const DUMMY_HASH = '0'.repeat(64);

/**
 * Verifies API keys with a short in-process cache. A revocation (or tier change) reaches
 * every process within `ttlMs`, because each process re-reads the key row after that long.
 * A key in use is re-read in the background once its entry is past half that age, so its
 * calls keep finding a fresh entry instead of one in every ttlMs waiting for the read.
 * `lastUsedAt` is written in batches, not per request.
 */
export class KeyVerifier {
  private cache = new Map<string, CacheEntry>();
  private inFlight = new Map<string, Promise<CacheEntry>>();
  private generation = 0;
  private used = new Map<number, Date>();
  private flushing: Promise<void> | null = null;

  constructor(
    private prisma: PrismaClient,
    private pepper: string,
    private ttlMs: number,
    private now = () => Date.now(),
  ) {}

  async verify(rawKey: string): Promise<Viewer> {
    const prefix = keyPrefix(rawKey);
    if (prefix === null) throw invalidKey();
    const entry = await this.lookup(prefix);
    const ok = sameHash(hashApiKey(this.pepper, rawKey), entry.row?.secretHash ?? DUMMY_HASH);
    if (!ok || !entry.row || entry.row.revoked) throw invalidKey();
    this.used.set(entry.row.id, new Date(this.now()));
    return {
      workspaceId: entry.row.workspaceId,
      workspaceName: entry.row.workspaceName,
      tier: entry.row.tier,
      apiKeyId: entry.row.id,
      keyName: entry.row.name,
      keyPrefix: prefix,
    };
  }

  private async lookup(prefix: string): Promise<CacheEntry> {
    const cached = this.cache.get(prefix);
    const age = cached ? this.now() - cached.at : Infinity;
    if (age < this.ttlMs) {
      // A failed background read changes nothing: the entry expires and the next call reads (and fails) itself.
      if (age >= this.ttlMs / 2) this.shared(prefix).catch(() => {});
      return cached!;
    }
    return this.shared(prefix);
  }

  /** Concurrent reads of one prefix share one statement: when an entry expires under load, every request carrying that key would otherwise query the database at the same moment. */
  private shared(prefix: string): Promise<CacheEntry> {
    let pending = this.inFlight.get(prefix);
    if (!pending) {
      const read = this.read(prefix).finally(() => {
        if (this.inFlight.get(prefix) === read) this.inFlight.delete(prefix);
      });
      this.inFlight.set(prefix, (pending = read));
    }
    return pending;
  }

  private async read(prefix: string): Promise<CacheEntry> {
    const generation = this.generation;
    // Stamped before the statement: its snapshot is no older than this, so a row revoked at T is never served past
    // T + ttlMs (a stamp taken after a slow read would extend the life of what it read before T).
    const at = this.now();
    // The same work whether or not the prefix exists, or the time would tell which prefixes do:
    // ONE statement (`findUnique` with `include: { workspace }` sent a second one for a known
    // prefix only, docs/decisions/0013-constant-work-key-check.md) answering ONE row (all NULL for an unknown prefix).
    const [key] = await this.prisma.$queryRaw<Array<KeyRow | { [F in keyof KeyRow]: null }>>`
      SELECT k."id", k."secretHash", k."name", k."revokedAt" IS NOT NULL AS "revoked",
             k."workspaceId", w."name" AS "workspaceName", w."tier"
        FROM (VALUES (1)) AS one (x)
        LEFT JOIN ("ApiKey" k JOIN "Workspace" w ON w."id" = k."workspaceId") ON k."prefix" = ${prefix}`;
    const entry: CacheEntry = { at, row: key?.id != null ? (key as KeyRow) : null };
    if (generation !== this.generation) return entry; // invalidated while reading: answer, but never cache a row read before it
    if (this.cache.size > 50_000) this.cache.clear(); // bounded: garbage prefixes cannot grow it forever
    this.cache.set(prefix, entry);
    return entry;
  }

  /** Forget cached rows now (this process); other processes follow within ttlMs. */
  invalidate(prefix?: string) {
    this.generation++;
    if (prefix) {
      this.cache.delete(prefix);
      this.inFlight.delete(prefix);
    } else {
      this.cache.clear();
      this.inFlight.clear();
    }
  }

  /** Persist last-used times collected since the previous flush. */
  async flushLastUsed(): Promise<void> {
    if (this.flushing) return this.flushing;
    const batch = [...this.used];
    this.used.clear();
    this.flushing = (async () => {
      for (const [id, at] of batch) {
        await this.prisma.apiKey.updateMany({
          where: { id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: at } }] },
          data: { lastUsedAt: at },
        });
      }
    })().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }
}

function invalidKey() {
  return new AppError('invalid_api_key', 'The API key is not valid: it is unknown, malformed or revoked.');
}
