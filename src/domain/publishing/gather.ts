/**
 * Reads every piece of evidence from the database and sorts it into layers:
 *   layer 0 (GLOBAL)     reports whose effectiveVisibility is 'community' (about their subject and
 *                        every related subject) + every feed entry;
 *   layer w (CONTEXTUAL) workspace w's own reports (any visibility) + its ratings.
 * A community report therefore counts in the global layer AND its author's contextual layer
 * (scoring takes the max of the two, so it is never counted twice for that workspace).
 * Reporter ids are `ws:<workspaceId>`; a feed is its own source (`feed` = its name).
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { NetworkIndex } from '../network/types.ts';
import type { DimensionCode } from '../network/types.ts';
import type { EvidenceItem } from '../scoring/evidence.ts';
import { cidrTarget, MAPPED_KINDS, subjectTarget, type Target } from './targets.ts';

export const GLOBAL_LAYER = 0;

export type DirectSlot = { code: DimensionCode; key: string; name: string; items: EvidenceItem[] };
export type Layer = {
  /** Canonical IP → items about that IP (rolled up later). */
  ips: Map<string, EvidenceItem[]>;
  /** `code\0key` → items whose subject is the entity itself. */
  direct: Map<string, DirectSlot>;
};
export type GatherStats = {
  reports: number;
  ratings: number;
  feeds: number;
  feedEntries: number;
  skippedSubjects: number;
  truncatedCidrs: number;
};
export type Gathered = { layers: Map<number, Layer>; stats: GatherStats };

export type ReportRow = {
  workspaceId: number;
  visibility: string;
  outcomeCode: string;
  severity: string;
  createdAt: Date;
  kind: string;
  key: string;
};
export type RatingRow = { workspaceId: number; rating: number; createdAt: Date; key: string };
export type FeedRow = { name: string; weight: number; importedAt: Date; cidr: string };

/** A report row as evidence (community-visible reports are `shared`: they are in the global layer too). */
export function reportItem(r: Omit<ReportRow, 'kind' | 'key'>): EvidenceItem {
  return {
    type: 'report',
    outcomeCode: r.outcomeCode,
    severity: r.severity,
    at: r.createdAt,
    reporter: `ws:${r.workspaceId}`,
    shared: r.visibility === 'community',
  };
}

/** A rating row as evidence; null for a rating outside -1, 0, 1. */
export function ratingItem(g: Omit<RatingRow, 'key'>): EvidenceItem | null {
  if (g.rating !== -1 && g.rating !== 0 && g.rating !== 1) return null;
  return { type: 'rating', rating: g.rating, at: g.createdAt, reporter: `ws:${g.workspaceId}` };
}

/** A feed entry as evidence: one item per entry, the block it lists named in the summaries' listings. */
export function feedItem(e: FeedRow): EvidenceItem {
  return { type: 'feed', feed: e.name, weight: e.weight, at: e.importedAt, block: e.cidr };
}

function layerOf(layers: Map<number, Layer>, id: number): Layer {
  let layer = layers.get(id);
  if (!layer) layers.set(id, (layer = { ips: new Map(), direct: new Map() }));
  return layer;
}

function addDirect(layer: Layer, code: DimensionCode, key: string, name: string, item: EvidenceItem): void {
  const slotKey = `${code}\u0000${key}`;
  let slot = layer.direct.get(slotKey);
  if (!slot) layer.direct.set(slotKey, (slot = { code, key, name, items: [] }));
  slot.items.push(item);
}

/** Puts one item where its target says. Returns false when the target is nowhere. */
function place(layer: Layer, target: Target, item: EvidenceItem, stats: GatherStats): boolean {
  switch (target.kind) {
    case 'ip': {
      const items = layer.ips.get(target.ip);
      if (items) items.push(item);
      else layer.ips.set(target.ip, [item]);
      return true;
    }
    case 'subnets':
      if (target.truncated) stats.truncatedCidrs++;
      for (const s of target.subnets)
        addDirect(layer, 'subnet', s.key, s.name, s.scale === 1 ? item : { ...item, scale: s.scale });
      return true;
    case 'entity':
      addDirect(layer, target.code, target.key, target.key, item);
      return true;
    case 'none':
      return false;
  }
}

export async function gatherEvidence(prisma: PrismaClient, network: NetworkIndex): Promise<Gathered> {
  const layers = new Map<number, Layer>([[GLOBAL_LAYER, { ips: new Map(), direct: new Map() }]]);
  const stats: GatherStats = {
    reports: 0,
    ratings: 0,
    feeds: 0,
    feedEntries: 0,
    skippedSubjects: 0,
    truncatedCidrs: 0,
  };
  // Targets are memoised per (kind, key): a CIDR's subnet walk runs once even if many reports name it.
  const targets = new Map<string, Target>();
  const targetOf = (kind: string, key: string): Target => {
    const k = `${kind}\u0000${key}`;
    let t = targets.get(k);
    if (!t) targets.set(k, (t = subjectTarget(network, kind, key)));
    return t;
  };

  // UNION (not UNION ALL) keyed by report id: a subject named twice by one report counts once.
  const reports = await prisma.$queryRaw<Array<ReportRow & { id: number }>>`
    SELECT r."id", r."workspaceId", r."effectiveVisibility" AS "visibility", r."outcomeCode", r."severity", r."createdAt",
           s."kind", s."key"
      FROM "Report" r JOIN "Subject" s ON s."id" = r."subjectId"
     WHERE s."kind" = ANY(${MAPPED_KINDS as string[]}::text[])
    UNION
    SELECT r."id", r."workspaceId", r."effectiveVisibility", r."outcomeCode", r."severity", r."createdAt", s."kind", s."key"
      FROM "Report" r JOIN "ReportLink" l ON l."reportId" = r."id" JOIN "Subject" s ON s."id" = l."subjectId"
     WHERE s."kind" = ANY(${MAPPED_KINDS as string[]}::text[])`;
  for (const r of reports) {
    const item = reportItem(r);
    const target = targetOf(r.kind, r.key);
    if (!place(layerOf(layers, r.workspaceId), target, item, stats)) {
      stats.skippedSubjects++;
      continue;
    }
    if (r.visibility === 'community') place(layers.get(GLOBAL_LAYER)!, target, item, stats);
    stats.reports++;
  }

  const ratings = await prisma.$queryRaw<RatingRow[]>`
    SELECT g."workspaceId", g."rating", g."createdAt", s."key"
      FROM "Rating" g JOIN "Subject" s ON s."id" = g."subjectId"
     WHERE s."kind" = 'ipaddress'`;
  for (const g of ratings) {
    const item = ratingItem(g);
    if (!item) continue;
    if (place(layerOf(layers, g.workspaceId), targetOf('ipaddress', g.key), item, stats)) stats.ratings++;
    else stats.skippedSubjects++;
  }

  const feedEntries = await prisma.$queryRaw<FeedRow[]>`
    SELECT f."name", f."weight", f."importedAt", e."cidr"
      FROM "FeedEntry" e JOIN "Feed" f ON f."id" = e."feedId"`;
  const global = layers.get(GLOBAL_LAYER)!;
  const feedNames = new Set<string>();
  for (const e of feedEntries) {
    const item = feedItem(e);
    feedNames.add(e.name);
    if (place(global, cidrTarget(network, e.cidr), item, stats)) stats.feedEntries++;
  }
  stats.feeds = feedNames.size;
  return { layers, stats };
}
