import type { Viewer } from '../access/verifier.ts';
import type { NetworkIndex } from '../network/index.ts';
import type { PublicationCache, Snapshot } from '../publishing/index.ts';
import type { Hierarchy } from '../network/types.ts';
import type { TierCatalog } from '../metering/tiers.ts';
import type { ScoreMeter, QuotaPosture, MeteredSurface } from '../metering/meter.ts';
import type { CommunitySignals } from '../community/signal.ts';
import { readScoreSignal, type ScoreCommunitySignal } from '../community/networks.ts';
import type { IpMemoryCache, IpMemory } from '../memory/ip-memory.ts';
import type { OverrideCache } from '../overrides/rule-cache.ts';
import { applyOverride, type AppliedOverride } from '../overrides/apply.ts';
import type { IpScore } from '../scoring/score.ts';
import { callerScore } from './caller-score.ts';
import { reportLinks, type ReportLinks } from './report-links.ts';
import { isAppError, type ErrorCode } from '../../errors.ts';
import type { ApiSurface, ScoreRefusal } from '../../platform/metrics.ts';

/** Told each call's metering outcome (the metrics), by the caller's tier and the surface it came through. */
export type ScoreObserver = {
  scoreCounted(tier: string, surface: ApiSurface): void;
  scoreRefused(tier: string, surface: ApiSurface, reason: ScoreRefusal): void;
};
const REFUSALS: Partial<Record<ErrorCode, ScoreRefusal>> = { quota_exceeded: 'quota', rate_limited: 'burst' };

export type ScoreDeps = {
  network: NetworkIndex;
  publications: PublicationCache;
  tiers: TierCatalog;
  meter: ScoreMeter;
  community: CommunitySignals;
  ipMemory: IpMemoryCache;
  overrides: OverrideCache;
  baseUrl: string;
  observeScore?: ScoreObserver | undefined;
};

/** The score answer in the domain's names, which are the GraphQL type's fields (read as plain properties, no resolvers). */
export type ScoreOutcome = ReportLinks & {
  ip: string;
  apiKey: { name: string; prefix: string };
  quota: QuotaPosture;
  /** The overall score and level after the workspace's override rule, if one applies; the dimensions as published. */
  score: IpScore;
  /** The workspace's rule that changed the score; null when none applies. */
  override: AppliedOverride | null;
  communitySignal: ScoreCommunitySignal;
  memory: IpMemory;
  publication: { version: number; publishedAt: Date | null };
};

/**
 * One metered score call, the same for REST, GraphQL and the MCP tool `score_ip` (counted on the caller's surface):
 * (a canonical IP: each transport validates its input) → eligibility → compute from ONE publication snapshot (plus the workspace's own
 * layer and memory) → burst limit and count in one atomic step (only now, so every failure
 * before is free) → record the lookup for the community signal.
 *
 * The community snapshots (the IP's and its networks', community/networks.ts) are read in the same tick as the metering step, so both reach the counter store in
 * one round trip (node-redis writes commands issued in one tick as one pipeline) instead of two in a row.
 * Once the call is counted nothing may fail it, so a snapshot that cannot be read answers
 * `community_signal.ok = false` (CommunitySignals.readOrUnavailable); when the store is down, the metering
 * step fails too and the call is refused with 503 quota_unavailable, uncounted.
 */
export async function scoreRequest(
  input: { ip: string; viewer: Viewer; requester: string; surface?: MeteredSurface | undefined; via: ApiSurface },
  deps: ScoreDeps,
): Promise<ScoreOutcome> {
  const { ip, viewer, surface = 'api_score' } = input;
  const tier = deps.tiers.get(viewer.tier);
  const nowMs = deps.meter.admit(tier, surface);
  const hierarchy = deps.network.resolve(ip);
  const answer = scoreAnswer(ip, hierarchy, viewer, deps.publications.current(), deps, nowMs);
  const [communitySignal, quota] = await Promise.all([
    readScoreSignal(deps.community, hierarchy, nowMs),
    deps.meter.consume(viewer, tier, nowMs, surface),
  ]).catch((e: unknown) => refused(e, viewer, input.via, deps));
  deps.observeScore?.scoreCounted(viewer.tier, input.via);
  // The call has succeeded and is counted: a failure to record the lookup must not turn it into an error
  // (CommunitySignals reports a failed batch once, to the log).
  void deps.community.record(hierarchy, input.requester, nowMs);
  return { ...answer, quota, communitySignal };
}

/** Tells the observer of a metering refusal (quota or burst), then fails the call with it. */
export function refused(e: unknown, viewer: Viewer, via: ApiSurface, deps: ScoreDeps): never {
  const refusal = isAppError(e) ? REFUSALS[e.code] : undefined;
  if (refusal) deps.observeScore?.scoreRefused(viewer.tier, via, refusal);
  throw e;
}

/**
 * One IP's answer, less the call's quota and the community signal read with it: computed from ONE publication
 * snapshot (plus the workspace's own layer and memory). The one shaping of a score, for a single call and for
 * each IP of a batch.
 */
export function scoreAnswer(
  ip: string,
  hierarchy: Hierarchy,
  viewer: Viewer,
  snapshot: Snapshot,
  deps: ScoreDeps,
  nowMs: number,
): Omit<ScoreOutcome, 'quota' | 'communitySignal'> {
  // The workspace's memory is this process's copy: no query (ip-memory.ts).
  const evidence = callerScore(hierarchy, snapshot, viewer.workspaceId, deps.ipMemory, nowMs);
  const memory = deps.ipMemory.get(viewer.workspaceId, ip);
  // The workspace's rules, this process's copy too: no query (overrides/rule-cache.ts).
  const { score, override } = applyOverride(evidence, deps.overrides.find(viewer.workspaceId, hierarchy));
  return {
    ip,
    apiKey: { name: viewer.keyName, prefix: viewer.keyPrefix },
    score,
    override,
    memory,
    ...reportLinks(deps.baseUrl, ip, evidence),
    publication: { version: snapshot.version, publishedAt: snapshot.publishedAt },
  };
}
