/**
 * The evidence of one scope (the global layer, and one workspace's own layer when asked), read in pages of report
 * and rating ids instead of one query holding the whole history: each page's rows are turned into evidence items
 * (the publisher's own row → item functions, gather.ts) and handed to the sink, then dropped. Rows of other
 * workspaces' own layers are not read at all. Feed entries are read whole: a feed's size is bounded at import.
 *
 * Layers as gather.ts sorts them: a report goes to its author's layer and, when community-visible, to the global
 * layer; a rating to its author's layer; a feed entry to the global layer.
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { NetworkIndex } from '../network/types.ts';
import type { EvidenceItem } from '../scoring/evidence.ts';
import {
  feedItem,
  GLOBAL_LAYER,
  ratingItem,
  reportItem,
  type FeedRow,
  type RatingRow,
  type ReportRow,
} from '../publishing/gather.ts';
import { cidrTarget, MAPPED_KINDS, subjectTarget, type Target } from '../publishing/targets.ts';
import { nextTurn } from './layer-history.ts';

/** Ids per page: a page's rows are a few MB whatever the history's length. */
export const HISTORY_PAGE_IDS = 20_000;

export type HistorySink = (layer: number, target: Target, item: EvidenceItem) => void;

async function maxId(prisma: PrismaClient, table: 'Report' | 'Rating'): Promise<number> {
  const rows = await prisma.$queryRawUnsafe<Array<{ max: number | bigint | null }>>(
    `SELECT max("id") AS "max" FROM "${table}"`,
  );
  return Number(rows[0]?.max ?? 0);
}

/**
 * Reads the scope's evidence page by page into `sink`. `workspaceId`: the own layer to read besides the global one
 * (undefined: the global layer only).
 */
export async function readHistory(
  prisma: PrismaClient,
  network: NetworkIndex,
  workspaceId: number | undefined,
  sink: HistorySink,
): Promise<void> {
  const own = workspaceId ?? -1;
  const kinds = MAPPED_KINDS as string[];
  // Targets are memoised per page only (a history's distinct subjects are as many as its reports).
  let targets = new Map<string, Target>();
  const targetOf = (kind: string, key: string): Target => {
    const k = `${kind}\u0000${key}`;
    let t = targets.get(k);
    if (!t) targets.set(k, (t = subjectTarget(network, kind, key)));
    return t;
  };

  let handled = 0;
  const lastReport = await maxId(prisma, 'Report');
  for (let lo = 0; lo < lastReport; lo += HISTORY_PAGE_IDS) {
    const hi = lo + HISTORY_PAGE_IDS;
    // UNION (not UNION ALL) keyed by report id, as gather.ts: a subject named twice by one report counts once.
    const rows = await prisma.$queryRaw<Array<ReportRow & { id: number }>>`
      SELECT r."id", r."workspaceId", r."effectiveVisibility" AS "visibility", r."outcomeCode", r."severity",
             r."createdAt", s."kind", s."key"
        FROM "Report" r JOIN "Subject" s ON s."id" = r."subjectId"
       WHERE r."id" > ${lo} AND r."id" <= ${hi} AND s."kind" = ANY(${kinds}::text[])
         AND (r."effectiveVisibility" = 'community' OR r."workspaceId" = ${own})
      UNION
      SELECT r."id", r."workspaceId", r."effectiveVisibility", r."outcomeCode", r."severity", r."createdAt",
             s."kind", s."key"
        FROM "Report" r JOIN "ReportLink" l ON l."reportId" = r."id" JOIN "Subject" s ON s."id" = l."subjectId"
       WHERE r."id" > ${lo} AND r."id" <= ${hi} AND s."kind" = ANY(${kinds}::text[])
         AND (r."effectiveVisibility" = 'community' OR r."workspaceId" = ${own})`;
    for (const r of rows) {
      const item = reportItem(r);
      const target = targetOf(r.kind, r.key);
      if (r.workspaceId === own) sink(own, target, item);
      if (r.visibility === 'community') sink(GLOBAL_LAYER, target, item);
      if (++handled % 1024 === 0) await nextTurn();
    }
    targets = new Map();
  }

  if (workspaceId !== undefined) {
    const lastRating = await maxId(prisma, 'Rating');
    for (let lo = 0; lo < lastRating; lo += HISTORY_PAGE_IDS) {
      const hi = lo + HISTORY_PAGE_IDS;
      const rows = await prisma.$queryRaw<RatingRow[]>`
        SELECT g."workspaceId", g."rating", g."createdAt", s."key"
          FROM "Rating" g JOIN "Subject" s ON s."id" = g."subjectId"
         WHERE g."id" > ${lo} AND g."id" <= ${hi} AND g."workspaceId" = ${workspaceId} AND s."kind" = 'ipaddress'`;
      for (const g of rows) {
        const item = ratingItem(g);
        if (item) sink(workspaceId, targetOf('ipaddress', g.key), item);
        if (++handled % 1024 === 0) await nextTurn();
      }
      targets = new Map();
    }
  }

  const entries = await prisma.$queryRaw<FeedRow[]>`
    SELECT f."name", f."weight", f."importedAt", e."cidr"
      FROM "FeedEntry" e JOIN "Feed" f ON f."id" = e."feedId"`;
  for (const e of entries) {
    sink(GLOBAL_LAYER, cidrTarget(network, e.cidr), feedItem(e));
    if (++handled % 1024 === 0) await nextTurn();
  }
}
