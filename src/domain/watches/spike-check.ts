import type { PrismaClient } from '../../generated/prisma/client.ts';
import { windowStart } from '../../platform/counters/keys.ts';
import type { CommunitySignals } from '../community/signal.ts';
import { emitWebhookEvent } from '../webhooks/emit.ts';
import { spikeEvent, type SpikingEntity } from './events.ts';
import type { TargetMeasurer } from './measure.ts';
import { WATCH_LIMITS } from './schemas.ts';
import type { WatchTargetKind } from './target.ts';

/**
 * How long after a 10-minute boundary the spike check treats the ended window as readable: more than the
 * community signal's own settle delay (services.ts), so the window the check is keyed on is one the signal
 * already includes.
 */
export const SPIKE_SETTLE_MS = 5_000;

type Row = { id: number; workspaceId: number; targetKind: WatchTargetKind; target: string; scoreThreshold: number | null; note: string; lastSpiking: boolean; spikeCheckedWindow: bigint | null };

/**
 * Reads the community signal of every ip, cidr and asn watch once per 10-minute window (the windows the signal
 * is made of: community/windows.ts) and fires watch.spike_started when it goes from not spiking to spiking.
 * Chunks and locks as checkPublication: each watch's new state and its event commit together, once per window
 * across processes. The first check of a watch only records state. A signal that cannot be read (counter store
 * down) fails the chunk, which changes nothing and is retried on the next run.
 */
export async function checkSpikes(
  prisma: PrismaClient, community: Pick<CommunitySignals, 'read'>, keysOf: Pick<TargetMeasurer, 'spikeKeys'>, nowMs: number,
  chunk: number = WATCH_LIMITS.chunk,
): Promise<{ watches: number; events: number }> {
  const done = { watches: 0, events: 0 };
  const window = BigInt(windowStart(nowMs - SPIKE_SETTLE_MS));
  for (;;) {
    const taken = await prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<Row[]>`
        SELECT "id", "workspaceId", "targetKind", "target", "scoreThreshold", "note", "lastSpiking", "spikeCheckedWindow"
          FROM "Watch"
         WHERE "targetKind" <> 'subject' AND ("spikeCheckedWindow" IS NULL OR "spikeCheckedWindow" < ${window})
         ORDER BY "id" LIMIT ${chunk} FOR UPDATE SKIP LOCKED`;
      const at = new Date(nowMs);
      for (const w of rows) {
        const keys = keysOf.spikeKeys(w.targetKind, w.target);
        const signals = await Promise.all(keys.map((key) => community.read(key, nowMs)));
        const spiking: SpikingEntity[] = signals.flatMap((s, i) => (s.hasSpike
          ? [{ key: keys[i]!, lookups10m: s.lookups10m, requesters60m: s.requesters60m, spikeWindows7d: s.spikeWindows7d }] : []));
        const now = spiking.length > 0;
        if (now && !w.lastSpiking && w.spikeCheckedWindow !== null) {
          if (await emitWebhookEvent(tx, { workspaceId: w.workspaceId, ...spikeEvent(w, spiking, Number(window), at) })) done.events++;
        }
        await tx.watch.update({ where: { id: w.id }, data: { lastSpiking: now, spikeCheckedWindow: window } });
      }
      return rows.length;
    });
    done.watches += taken;
    if (taken < chunk) return done;
  }
}
