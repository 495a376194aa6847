import type { PrismaClient } from '../../generated/prisma/client.ts';
import { LruMap } from '../../platform/lru-map.ts';
import { parseIp } from '../network/ip.ts';
import type { NetworkIndex } from '../network/types.ts';
import { emitWebhookEvent } from '../webhooks/emit.ts';

/** Bounds of the key.new_country tracker (docs/watches.md, docs/security.md). */
export const KEY_COUNTRY_LIMITS = {
  /** (key, client address) pairs remembered as already placed: a repeat costs one map read, no resolution. */
  seenAddresses: 50_000,
  /** (key, country) pairs remembered as already recorded: a repeat is never sent to the database. */
  knownCountries: 100_000,
  /** Uses waiting for the next flush; past it, new ones are dropped (the next use of the pair notes it again). */
  pending: 10_000,
  /** Earlier countries named in an event. */
  previousInEvent: 20,
} as const;

type KeyRef = { apiKeyId: number; workspaceId: number; keyName: string; keyPrefix: string };
type Use = KeyRef & { country: string; ip: string; atMs: number; address: string };

/**
 * key.new_country: the countries each API key is used from, and an event when a key that has been used from a
 * country is used from another. Every authenticated API request notes its key and client address (`note`, the
 * request path: one map read for an address already seen with the key, else one resolution of the address to its
 * country); a new (key, country) pair waits in memory and `flush` records it (part of each detection round).
 * Recording a pair and its event is one transaction that locks the key's row first, so across processes each pair
 * is recorded once and gives one event; a key's first country only records state. Addresses without a country
 * (private, loopback, documentation space, or unplaced) are not counted.
 */
export class KeyCountryTracker {
  private readonly seen = new LruMap<string, true>(KEY_COUNTRY_LIMITS.seenAddresses);
  private readonly known = new LruMap<string, true>(KEY_COUNTRY_LIMITS.knownCountries);
  private pending = new Map<string, Use>();

  constructor(private readonly network: Pick<NetworkIndex, 'resolve'>) {}

  note(key: KeyRef, clientIp: string, nowMs = Date.now()): void {
    const address = `${key.apiKeyId} ${clientIp}`;
    if (this.seen.get(address)) return;
    this.seen.set(address, true);
    const parsed = parseIp(clientIp);
    if (!parsed.ok) return;
    const country = this.network.resolve(parsed.canonical).dimensions.find((d) => d.code === 'country')?.entity?.key;
    if (!country) return;
    const pair = `${key.apiKeyId} ${country}`;
    if (this.known.get(pair) || this.pending.has(pair) || this.pending.size >= KEY_COUNTRY_LIMITS.pending) return;
    this.pending.set(pair, { ...key, country, ip: parsed.canonical, atMs: nowMs, address });
  }

  /** Records the pending pairs, each with its event when it is the key's second country or later. */
  async flush(prisma: PrismaClient): Promise<{ recorded: number; events: number }> {
    const uses = [...this.pending.values()];
    this.pending = new Map();
    const done = { recorded: 0, events: 0 };
    for (const [i, use] of uses.entries()) {
      try {
        const outcome = await record(prisma, use);
        this.known.set(`${use.apiKeyId} ${use.country}`, true);
        if (outcome.recorded) done.recorded++;
        if (outcome.event) done.events++;
      } catch (e) {
        // Not recorded: forget these addresses, so the keys' next uses from them note the pairs again.
        for (const left of uses.slice(i)) this.seen.deleteIf(left.address, true);
        throw e;
      }
    }
    return done;
  }
}

async function record(prisma: PrismaClient, use: Use): Promise<{ recorded: boolean; event: boolean }> {
  return prisma.$transaction(async (tx) => {
    // The key's uses take turns, so "is this its first country?" holds under concurrency; a deleted key records nothing.
    const key = await tx.$queryRaw<
      Array<{ id: number }>
    >`SELECT "id" FROM "ApiKey" WHERE "id" = ${use.apiKeyId} FOR NO KEY UPDATE`;
    if (key.length === 0) return { recorded: false, event: false };
    const inserted = await tx.$executeRaw`
      INSERT INTO "ApiKeyCountry" ("apiKeyId", "country") VALUES (${use.apiKeyId}, ${use.country}) ON CONFLICT DO NOTHING`;
    if (inserted === 0) return { recorded: false, event: false };
    const earlier = await tx.apiKeyCountry.findMany({
      where: { apiKeyId: use.apiKeyId, country: { not: use.country } },
      orderBy: { firstSeenAt: 'asc' },
      take: KEY_COUNTRY_LIMITS.previousInEvent,
      select: { country: true },
    });
    if (earlier.length === 0) return { recorded: true, event: false };
    const id = await emitWebhookEvent(tx, {
      workspaceId: use.workspaceId,
      type: 'key.new_country',
      data: {
        api_key: { id: use.apiKeyId, name: use.keyName, prefix: use.keyPrefix },
        country: use.country,
        ip: use.ip,
        previous_countries: earlier.map((c) => c.country),
        used_at: new Date(use.atMs).toISOString(),
        observed_at: new Date().toISOString(),
      },
    });
    return { recorded: true, event: id !== null };
  });
}
