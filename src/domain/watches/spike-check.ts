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

type Row = {
  id: number;
  workspaceId: number;
  targetKind: WatchTargetKind;
  target: string;
  scoreThreshold: number | null;
  note: string;
  lastSpiking: boolean;
  spikeCheckedWindow: bigint | null;
};

/**
 * Reads the community signal of every ip, cidr and asn watch once per 10-minute window (the windows the signal
 * is made of: community/windows.ts) and fires watch.spike_started when it goes from not spiking to spiking.
 * A step picks WATCH_LIMITS.chunk watches not yet checked this window and reads their signals OUTSIDE any
 * transaction (no row lock or database connection waits on the counter store), then, in one transaction, locks
 * those still unchecked (FOR UPDATE SKIP LOCKED: another process may have taken them meanwhile) and writes each
 * watch's new state with its event: once per window across processes. The first check of a watch only records
 * state. A signal that cannot be read (counter store down) fails the step, which changes nothing and is retried
 * on the next run.
 */
export async function checkSpikes(
  prisma: PrismaClient,
  community: Pick<CommunitySignals, 'read'>,
  keysOf: Pick<TargetMeasurer, 'spikeKeys'>,
  nowMs: number,
  chunk: number = WATCH_LIMITS.chunk,
): Promise<{ watches: number; events: number }> {
  const done = { watches: 0, events: 0 };
  const window = BigInt(windowStart(nowMs - SPIKE_SETTLE_MS));
  let after = 0;
  for (;;) {
    const due = await prisma.$queryRaw<Array<Pick<Row, 'id' | 'targetKind' | 'target'>>>`
      SELECT "id", "targetKind", "target" FROM "Watch"
       WHERE "id" > ${after} AND "targetKind" <> 'subject' AND ("spikeCheckedWindow" IS NULL OR "spikeCheckedWindow" < ${window})
       ORDER BY "id" LIMIT ${chunk}`;
    if (due.length === 0) return done;
    after = due.at(-1)!.id;
    const spikingOf = new Map<number, SpikingEntity[]>();
    await Promise.all(
      due.map(async (w) => {
        const keys = keysOf.spikeKeys(w.targetKind, w.target);
        const signals = await Promise.all(keys.map((key) => community.read(key, nowMs)));
        spikingOf.set(
          w.id,
          signals.flatMap((s, i) =>
            s.hasSpike
              ? [
                  {
                    key: keys[i]!,
                    lookups10m: s.lookups10m,
                    requesters60m: s.requesters60m,
                    spikeWindows7d: s.spikeWindows7d,
                  },
                ]
              : [],
          ),
        );
      }),
    );
    await prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<Row[]>`
        SELECT "id", "workspaceId", "targetKind", "target", "scoreThreshold", "note", "lastSpiking", "spikeCheckedWindow"
          FROM "Watch"
         WHERE "id" = ANY(${due.map((w) => w.id)}::int[]) AND ("spikeCheckedWindow" IS NULL OR "spikeCheckedWindow" < ${window})
         ORDER BY "id" FOR UPDATE SKIP LOCKED`;
      const at = new Date(nowMs);
      for (const w of rows) {
        const spiking = spikingOf.get(w.id)!;
        const now = spiking.length > 0;
        if (now && !w.lastSpiking && w.spikeCheckedWindow !== null) {
          if (await emitWebhookEvent(tx, { workspaceId: w.workspaceId, ...spikeEvent(w, spiking, Number(window), at) }))
            done.events++;
        }
        await tx.watch.update({ where: { id: w.id }, data: { lastSpiking: now, spikeCheckedWindow: window } });
      }
      done.watches += rows.length;
    });
    if (due.length < chunk) return done;
  }
}
