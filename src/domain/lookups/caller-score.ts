/**
 * The score a workspace sees for an IP, before its override rules: one snapshot's published layers plus the
 * workspace's live own verdict from this process's copy of its memory (no query). The one place a score is
 * taken for a caller: score, score/batch, check-block and watches all go through it, so they agree.
 */
import type { IpMemoryCache } from '../memory/ip-memory.ts';
import type { Hierarchy } from '../network/types.ts';
import type { Snapshot } from '../publishing/index.ts';
import { ownVerdict, type OwnVerdict } from '../scoring/own-verdict.ts';
import { scoreIp, type IpScore } from '../scoring/score.ts';

/** The workspace's own verdict on `ip` at `nowMs` (scoring/own-verdict.ts); null when it has none. */
export function callerVerdict(
  memory: IpMemoryCache,
  workspaceId: number,
  ip: string,
  nowMs: number,
): OwnVerdict | null {
  const m = memory.get(workspaceId, ip);
  const counts = {
    reports: m.reports,
    badRatings: m.badRatings,
    neutralRatings: m.neutralRatings,
    goodRatings: m.goodRatings,
    feedListings: 0,
  };
  return ownVerdict(memory.own(workspaceId, ip), counts, nowMs);
}

export function callerScore(
  h: Hierarchy,
  snapshot: Snapshot,
  workspaceId: number,
  memory: IpMemoryCache,
  nowMs: number,
): IpScore {
  const own = callerVerdict(memory, workspaceId, h.ip, nowMs);
  const ownReported = memory.reported(workspaceId, h.ip);
  return scoreIp(h, snapshot.global, snapshot.contextual(workspaceId), { own, ownReported, now: nowMs });
}
