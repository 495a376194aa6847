import { createHash } from 'node:crypto';
import type { Viewer } from '../access/verifier.ts';
import type { MeteredSurface, QuotaPosture } from '../metering/meter.ts';
import type { ApiSurface } from '../../platform/metrics.ts';
import { buildBlocklist, type BlocklistList } from './blocklist.ts';
import type { BlocklistFormat, BlocklistInput } from './blocklist-input.ts';
import { refused, type ScoreDeps } from './score-call.ts';

/** A blocklist answer: the list, its body in the asked format, the body's ETag and the quota after it (null: 304). */
export type BlocklistOutcome = BlocklistList & {
  apiKey: { name: string; prefix: string };
  format: BlocklistFormat;
  body: string;
  etag: string;
  /** null when the caller already holds this body (If-None-Match): nothing was counted. */
  quota: QuotaPosture | null;
};

/** A strong ETag of the exact body: equal bodies, equal tags, on every process. */
export function bodyTag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** RFC 9110: If-None-Match is `*` or a list of tags; a weak tag matches its strong twin (weak comparison). */
export function matchesTag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/**
 * GET /risk_api/blocklist/ and the MCP tool get_blocklist. Metering (docs/api.md#blocklist): a tier that includes
 * score, checked before any work; a list answered counts ONE call on the surface's daily score quota and the key's
 * burst limit, as a score call does, since it tells the level of many IPs at once; a 304 (the caller's copy is
 * current) counts nothing, so a firewall polling every few minutes pays only when the list changed.
 */
export async function blocklistRequest(
  input: BlocklistInput & {
    viewer: Viewer;
    surface?: MeteredSurface | undefined;
    via: ApiSurface;
    ifNoneMatch?: string | undefined;
    render: (list: BlocklistList) => string;
  },
  deps: ScoreDeps,
): Promise<BlocklistOutcome> {
  const { viewer, surface = 'api_score' } = input;
  const tier = deps.tiers.get(viewer.tier);
  const nowMs = deps.meter.admit(tier, surface);
  const list = await buildBlocklist(viewer.workspaceId, input, deps, nowMs);
  const body = input.render(list);
  const etag = bodyTag(body);
  const apiKey = { name: viewer.keyName, prefix: viewer.keyPrefix };
  const format = input.format;
  if (matchesTag(input.ifNoneMatch, etag)) return { ...list, apiKey, format, body, etag, quota: null };
  const quota = await deps.meter
    .consume(viewer, tier, nowMs, surface)
    .catch((e: unknown) => refused(e, viewer, input.via, deps));
  deps.observeScore?.scoreCounted(viewer.tier, input.via);
  return { ...list, apiKey, format, body, etag, quota };
}
