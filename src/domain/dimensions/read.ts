import type { Hierarchy, DimensionCode, DimensionEntity } from '../network/types.ts';
import type { NetworkIndex } from '../network/index.ts';
import type { PublishedEntity, Snapshot } from '../publishing/index.ts';
import { parseIp } from '../network/ip.ts';
import { AppError } from '../../errors.ts';
import { NO_EVIDENCE_REASON } from '../scoring/score.ts';

/** One dimension of an IP's report hierarchy with the summaries a workspace may see. */
export type DimensionView = {
  code: DimensionCode;
  matched: boolean;
  entity: DimensionEntity | null;
  reason: string | null;
  /** The global layer of the latest publication. */
  published: PublishedEntity | null;
  /** The caller workspace's own layer (its private evidence); never another workspace's. */
  workspace: PublishedEntity | null;
};

export type IpDimensions = { hierarchy: Hierarchy; snapshot: Snapshot; dimensions: DimensionView[] };

/** Parses an untrusted IP, or throws invalid_request naming `field`. */
export function requireIp(input: unknown, field = 'ip'): string {
  const parsed = parseIp(input);
  if (!parsed.ok) throw new AppError('invalid_request', `${field} ${parsed.reason}.`, [{ field, message: parsed.reason }]);
  return parsed.canonical;
}

/** The raw dimensional payload: hierarchy + published summaries, read from ONE snapshot. */
export function readDimensions(ip: string, workspaceId: number, network: NetworkIndex, snapshot: Snapshot): IpDimensions {
  const hierarchy = network.resolve(ip);
  const contextual = snapshot.contextual(workspaceId);
  const dimensions = hierarchy.dimensions.map(({ code, entity, reason }): DimensionView => {
    if (!entity || (hierarchy.special && code !== 'ip')) {
      return { code, matched: false, entity, reason: reason ?? hierarchy.special?.reason ?? null, published: null, workspace: null };
    }
    const published = snapshot.global(code, entity.key) ?? null;
    const workspace = contextual(code, entity.key) ?? null;
    const matched = published !== null || workspace !== null;
    return { code, matched, entity, reason: matched ? null : NO_EVIDENCE_REASON, published, workspace };
  });
  return { hierarchy, snapshot, dimensions };
}
