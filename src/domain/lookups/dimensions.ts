import type { Hierarchy, DimensionCode, DimensionEntity } from '../network/types.ts';
import type { NetworkIndex } from '../network/index.ts';
import type { PublishedEntity, Snapshot } from '../publishing/index.ts';
import type { IpMemoryCache } from '../memory/ip-memory.ts';
import { callerScore } from './caller-score.ts';
import { requireScoreEligible, type TierCatalog } from '../metering/tiers.ts';
import type { Viewer } from '../access/verifier.ts';

/** One dimension of an IP's report hierarchy with the summaries a workspace may see. */
export type DimensionRead = {
  code: DimensionCode;
  matched: boolean;
  entity: DimensionEntity | null;
  reason: string | null;
  /** The global layer of the latest publication. */
  published: PublishedEntity | null;
  /** The caller workspace's own layer (its private evidence); never another workspace's. */
  workspace: PublishedEntity | null;
};

export type IpDimensions = { hierarchy: Hierarchy; snapshot: Snapshot; dimensions: DimensionRead[] };
export type EntitySummaries = {
  code: DimensionCode;
  key: string;
  published: PublishedEntity | null;
  workspace: PublishedEntity | null;
  version: number;
  publishedAt: Date | null;
};
type Reader = Pick<Viewer, 'workspaceId' | 'tier'>;

/**
 * The raw dimensional payload: hierarchy + published summaries, read from ONE snapshot. Unmetered, but only
 * for a score-eligible tier (tiers.ts: the score can be rebuilt from these summaries). `matched` and `reason` are
 * the caller's score's own (scoring/score.ts, taken through callerScore as score takes it): a dimension is matched
 * when its evidence moves the score, not whenever a summary exists.
 */
export function readDimensions(
  ip: string,
  viewer: Reader,
  deps: { network: NetworkIndex; tiers: TierCatalog; ipMemory: IpMemoryCache },
  snapshot: Snapshot,
): IpDimensions {
  requireScoreEligible(deps.tiers.get(viewer.tier), 'dimensions');
  const hierarchy = deps.network.resolve(ip);
  const contextual = snapshot.contextual(viewer.workspaceId);
  const scored = callerScore(hierarchy, snapshot, viewer.workspaceId, deps.ipMemory, Date.now()).dimensions;
  const dimensions = hierarchy.dimensions.map(({ code, entity, reason }): DimensionRead => {
    if (!entity || (hierarchy.special && code !== 'ip')) {
      return {
        code,
        matched: false,
        entity,
        reason: reason ?? hierarchy.special?.reason ?? null,
        published: null,
        workspace: null,
      };
    }
    const published = snapshot.global(code, entity.key) ?? null;
    const workspace = contextual(code, entity.key) ?? null;
    const asScored = scored.find((d) => d.code === code)!;
    return { code, matched: asScored.matched, entity, reason: asScored.reason, published, workspace };
  });
  return { hierarchy, snapshot, dimensions };
}

/** One dimension entity's summaries by code and key (`dimensionEntity`): the same read, the same tier rule. */
export function readEntity(
  code: DimensionCode,
  key: string,
  viewer: Reader,
  deps: { tiers: TierCatalog },
  snapshot: Snapshot,
): EntitySummaries {
  requireScoreEligible(deps.tiers.get(viewer.tier), 'dimensions');
  return {
    code,
    key,
    version: snapshot.version,
    publishedAt: snapshot.publishedAt,
    published: snapshot.global(code, key) ?? null,
    workspace: snapshot.contextual(viewer.workspaceId)(code, key) ?? null,
  };
}
