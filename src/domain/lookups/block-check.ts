import { z } from 'zod';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { typeError } from '../memory/schemas.ts';
import { parseIp } from '../network/ip.ts';
import { BLOCK_BOUNDS, blockHolds, parseBlock, type CidrBlock } from '../network/block.ts';
import type { DimensionCode, DimensionEntity } from '../network/types.ts';
import type { PublishedEntity, Snapshot } from '../publishing/index.ts';
import type { CommunitySignal } from '../community/signal.ts';
import type { NetworkSignal } from '../community/networks.ts';
import type { QuotaPosture, MeteredSurface } from '../metering/meter.ts';
import type { Viewer } from '../access/verifier.ts';
import type { ApiSurface } from '../../platform/metrics.ts';
import { callerScore } from './caller-score.ts';
import type { RiskLevel } from '../scoring/levels.ts';
import { refused, type ScoreDeps } from './score-call.ts';
import { blockIpPage, blockTotals, ipEvidence, type BlockTotals } from './block-queries.ts';

/** IPs per page: at most MAX_BLOCK_PAGE, DEFAULT_BLOCK_PAGE when the caller names none. */
export const MAX_BLOCK_PAGE = 100;
export const DEFAULT_BLOCK_PAGE = 50;

export type BlockInput = { block: CidrBlock; input: string; cursor: string | null; limit: number };

/**
 * The body of check_block (REST, MCP) and the arguments of GraphQL's block: the block (bounded and canonical,
 * network/block.ts), the cursor (the `ip` of the previous page's last item, inside the block) and the page size.
 * Everything is checked here, before the call is metered: a refused request counts nothing.
 */
export const checkBlockInputSchema = z
  .strictObject(
    {
      cidr: z
        .string({ error: typeError('a string') })
        .transform((input, ctx) => {
          const parsed = parseBlock(input);
          if (parsed.ok) return { block: parsed.block, input };
          ctx.addIssue({ code: 'custom', message: parsed.reason, input });
          return z.NEVER;
        })
        .meta({
          description: `The CIDR block: IPv4 /${BLOCK_BOUNDS[4]} to /32, IPv6 /${BLOCK_BOUNDS[6]} to /128. Host bits set are cleared (the answer's query.cidr is the block read).`,
        }),
      cursor: z
        .string({ error: typeError('a string') })
        .nullable()
        .optional()
        .meta({ description: 'next_cursor of the previous page (absent or null: the first page).' }),
      limit: z
        .number({ error: typeError('an integer') })
        .int('must be an integer')
        .min(1, `must be 1 to ${MAX_BLOCK_PAGE}`)
        .max(MAX_BLOCK_PAGE, `must be 1 to ${MAX_BLOCK_PAGE}`)
        .nullable()
        .optional()
        .meta({ description: `IPs per page, 1 to ${MAX_BLOCK_PAGE} (default ${DEFAULT_BLOCK_PAGE}).` }),
    },
    { error: typeError('a JSON object') },
  )
  .transform((body, ctx): BlockInput => {
    const { block, input } = body.cidr;
    let cursor: string | null = null;
    if (body.cursor != null) {
      const ip = parseIp(body.cursor);
      if (!ip.ok || !blockHolds(block, ip.canonical)) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be the next_cursor of a page of this block',
          path: ['cursor'],
          input: body.cursor,
        });
        return z.NEVER;
      }
      cursor = ip.canonical;
    }
    return { block, input, cursor, limit: body.limit ?? DEFAULT_BLOCK_PAGE };
  });

/** One network entity the whole block lies in, with the summaries the caller may see. */
export type BlockNetwork = {
  code: DimensionCode;
  entity: DimensionEntity;
  published: PublishedEntity | null;
  workspace: PublishedEntity | null;
};
export type BlockSignal = { available: boolean; reason: string | null; subnet: NetworkSignal | null };
export type BlockIp = {
  ip: string;
  score: number;
  level: RiskLevel;
  reports: number;
  ratings: { good: number; neutral: number; bad: number };
  firstSeen: Date | null;
  lastSeen: Date | null;
};
export type BlockOutcome = {
  input: string;
  block: CidrBlock;
  apiKey: { name: string; prefix: string };
  quota: QuotaPosture;
  /** The subnet, AS and organisation holding the whole block; empty when it spans more than one subnet (networksReason says why). */
  networks: BlockNetwork[];
  networksReason: string | null;
  totals: BlockTotals;
  communitySignal: BlockSignal;
  ips: { items: BlockIp[]; nextCursor: string | null };
  publication: { version: number; publishedAt: Date | null };
};

export type BlockDeps = ScoreDeps & { prisma: PrismaClient };

const NETWORK_CODES: readonly DimensionCode[] = ['subnet', 'asn', 'org'];

/**
 * One metered block check, the same for REST, GraphQL and the MCP tool `check_block`: ONE score call on the
 * caller's surface (the score meter's eligibility, burst limit and daily quota, counted as scoreRequest counts
 * one IP), taken BEFORE the work, as a batch's is (score-batch.ts): the block's reads are the expensive part, so
 * a refused call (quota, burst) runs none of them and counts nothing. Then, from ONE publication snapshot: the
 * networks holding the block, its evidence totals and one page of its IPs, each scored as score would score it.
 * A block check records no lookup in the community signal: it is not a lookup of any one address.
 */
export async function checkBlock(
  input: BlockInput & { viewer: Viewer; surface?: MeteredSurface | undefined; via: ApiSurface },
  deps: BlockDeps,
): Promise<BlockOutcome> {
  const { viewer, block, surface = 'api_score' } = input;
  const tier = deps.tiers.get(viewer.tier);
  const nowMs = deps.meter.admit(tier, surface);
  const quota = await deps.meter
    .consume(viewer, tier, nowMs, surface)
    .catch((e: unknown) => refused(e, viewer, input.via, deps));
  deps.observeScore?.scoreCounted(viewer.tier, input.via);
  const snapshot = deps.publications.current();
  const { networks, reason } = blockNetworks(block, viewer.workspaceId, snapshot, deps);
  const subnet = networks.find((n) => n.code === 'subnet')?.entity.key;
  const [totals, page, signal] = await Promise.all([
    blockTotals(deps.prisma, viewer.workspaceId, block),
    blockIpPage(deps.prisma, viewer.workspaceId, block, input.cursor, input.limit + 1),
    subnet ? deps.community.readOrUnavailable(`subnet:${subnet}`, nowMs) : null,
  ]);
  const shown = page.slice(0, input.limit);
  const evidence = await ipEvidence(deps.prisma, viewer.workspaceId, shown);
  const items = shown.map((ip): BlockIp => {
    const score = callerScore(deps.network.resolve(ip), snapshot, viewer.workspaceId, deps.ipMemory, nowMs);
    const e = evidence.get(ip)!;
    return {
      ip,
      score: score.overallScore,
      level: score.overallRiskLevel,
      reports: e.reports,
      ratings: { good: e.good, neutral: e.neutral, bad: e.bad },
      firstSeen: e.firstSeen,
      lastSeen: e.lastSeen,
    };
  });
  return {
    input: input.input,
    block,
    apiKey: { name: viewer.keyName, prefix: viewer.keyPrefix },
    quota,
    networks,
    networksReason: reason,
    totals,
    communitySignal: blockSignal(subnet, signal, reason),
    ips: { items, nextCursor: page.length > input.limit ? shown[shown.length - 1]! : null },
    publication: { version: snapshot.version, publishedAt: snapshot.publishedAt },
  };
}

/** The subnet's signal, without its window list (as score's networks), or why no signal describes the block. */
function blockSignal(subnet: string | undefined, signal: CommunitySignal | null, reason: string | null): BlockSignal {
  if (!subnet || !signal)
    return {
      available: false,
      reason: `${reason ?? 'the block lies in no subnet'}, so no network signal describes the whole block`,
      subnet: null,
    };
  const { recentQueryWindows: _windows, ...metrics } = signal;
  return { available: true, reason: null, subnet: { ...metrics, key: subnet } };
}

/**
 * The subnet, AS and organisation entities holding the whole block. The subnet of the block's first address is a
 * CIDR block holding it (network/cidr.ts); when its prefix is no longer than the block's, it holds the whole
 * block, and so do its AS and organisation (one announced range has one origin). A block wider than that subnet
 * spans more than one announced range, whose owners this does not enumerate: no networks, and the reason.
 */
function blockNetworks(
  block: CidrBlock,
  workspaceId: number,
  snapshot: Snapshot,
  deps: BlockDeps,
): { networks: BlockNetwork[]; reason: string | null } {
  const h = deps.network.resolve(block.first);
  if (h.special) {
    return {
      networks: [],
      reason: `the block starts in the ${h.special.name} range ${h.special.cidr}, which belongs to no network`,
    };
  }
  const subnet = h.dimensions.find((d) => d.code === 'subnet')?.entity;
  const subnetPrefix = subnet ? Number(subnet.key.slice(subnet.key.indexOf('/') + 1)) : NaN;
  if (!subnet || !(subnetPrefix <= block.prefix)) {
    return {
      networks: [],
      reason: `the block is wider than the subnet ${subnet?.key ?? '(none)'} of its first address: it spans more than one announced subnet`,
    };
  }
  const contextual = snapshot.contextual(workspaceId);
  const networks = h.dimensions.flatMap((d): BlockNetwork[] =>
    d.entity && NETWORK_CODES.includes(d.code)
      ? [
          {
            code: d.code,
            entity: d.entity,
            published: snapshot.global(d.code, d.entity.key) ?? null,
            workspace: contextual(d.code, d.entity.key) ?? null,
          },
        ]
      : [],
  );
  return { networks, reason: null };
}
