import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { NetworkIndex } from '../network/types.ts';
import type { Snapshot } from '../publishing/index.ts';
import type { RiskLevel } from '../scoring/levels.ts';
import { emitWebhookEvent } from '../webhooks/emit.ts';
import { publicationEvents } from './events.ts';
import { TargetMeasurer } from './measure.ts';
import { WATCH_LIMITS } from './schemas.ts';
import type { WatchTargetKind } from './target.ts';

type Row = {
  id: number;
  workspaceId: number;
  targetKind: WatchTargetKind;
  target: string;
  scoreThreshold: number | null;
  note: string;
  lastScore: number | null;
  lastLevel: string | null;
  lastPublicationVersion: number | null;
};

/**
 * Compares every ip, cidr and asn watch with the publication `snapshot` holds, once per watch and publication
 * (docs/decisions/0023-watch-detection-in-chunks.md). Watches are taken WATCH_LIMITS.chunk at a time, locked
 * FOR UPDATE SKIP LOCKED: processes running this together share the watches, none is taken twice, and a
 * watch whose lastPublicationVersion is this version (or a newer one another process already holds) is
 * skipped. Each chunk is one transaction: the watches' new state and their events commit together or not
 * at all, so a change gives exactly one event, and a crash gives none and leaves the chunk to the next run.
 */
export async function checkPublication(
  prisma: PrismaClient,
  network: NetworkIndex,
  snapshot: Snapshot,
  chunk: number = WATCH_LIMITS.chunk,
  measurer: TargetMeasurer = new TargetMeasurer(snapshot, network),
): Promise<{ watches: number; events: number }> {
  const done = { watches: 0, events: 0 };
  if (snapshot.version === 0) return done;
  const publication = { version: snapshot.version, publishedAt: snapshot.publishedAt };
  for (;;) {
    const taken = await prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<Row[]>`
        SELECT "id", "workspaceId", "targetKind", "target", "scoreThreshold", "note", "lastScore", "lastLevel", "lastPublicationVersion"
          FROM "Watch"
         WHERE "targetKind" <> 'subject' AND ("lastPublicationVersion" IS NULL OR "lastPublicationVersion" < ${snapshot.version})
         ORDER BY "id" LIMIT ${chunk} FOR UPDATE SKIP LOCKED`;
      const at = new Date();
      for (const w of rows) {
        const after = measurer.measure(w.targetKind, w.target, w.workspaceId)!;
        const before =
          w.lastPublicationVersion !== null && w.lastScore !== null && w.lastLevel !== null
            ? { score: w.lastScore, level: w.lastLevel as RiskLevel, version: w.lastPublicationVersion }
            : null;
        for (const event of publicationEvents(w, before, after, publication, at)) {
          if (await emitWebhookEvent(tx, { workspaceId: w.workspaceId, ...event })) done.events++;
        }
        await tx.watch.update({
          where: { id: w.id },
          data: { lastScore: after.score, lastLevel: after.level, lastPublicationVersion: snapshot.version },
        });
      }
      return rows.length;
    });
    done.watches += taken;
    if (taken < chunk) return done;
  }
}
