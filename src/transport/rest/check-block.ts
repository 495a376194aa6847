import { defineOperation } from './operation.ts';
import { rateLimitHeaders } from '../../domain/metering/meter.ts';
import { QUOTA_FIELDS, networkSignal, type QuotaData } from './score.ts';
import { shapeSummary } from './dimensions.ts';

/**
 * POST /risk_api/check_block/: the metered block check, one fixed query on the shared schema (block), aliased to
 * the spec's snake_case names where the answer's layout is the same; shapeCheckBlock regroups the rest.
 */
export const checkBlockOperation = defineOperation('check_block', /* GraphQL */ `
  fragment Summary on RiskSummary {
    score level reports badRatings neutralRatings goodRatings feedListings reporters firstSeen lastSeen
  }
  fragment Signal on NetworkSignal { key ok label hasSpike lookups10m requesters60m spikeWindows7d }
  query CheckBlock($cidr: String!, $first: Int, $after: String) {
    block(cidr: $cidr, first: $first, after: $after) {
      query { input cidr host_bits_cleared: hostBitsCleared }
      api_key: apiKey { name prefix }
      ${QUOTA_FIELDS}
      block {
        cidr version prefix first_address: firstAddress last_address: lastAddress size
        networks { code entity { key name size } published { ...Summary } workspace { ...Summary } }
        networksReason
        countsByOutcome { outcomeCode reports }
        reports ratings { good neutral bad } first_seen: firstSeen last_seen: lastSeen
        communitySignal { available reason subnet { ...Signal } }
      }
      ips {
        nodes { ip score level reports ratings { good neutral bad } first_seen: firstSeen last_seen: lastSeen }
        nextCursor
      }
      publication { version publishedAt }
    }
  }`);

type Summary = Parameters<typeof shapeSummary>[0];
type Signal = { key: string; ok: boolean; label: string; hasSpike: boolean; lookups10m: number; requesters60m: number; spikeWindows7d: number };
type Ratings = { good: number; neutral: number; bad: number };
export type CheckBlockData = { block: {
  query: { input: string; cidr: string; host_bits_cleared: boolean };
  api_key: { name: string; prefix: string };
  quota: QuotaData;
  block: {
    cidr: string; version: number; prefix: number; first_address: string; last_address: string; size: string;
    networks: Array<{ code: string; entity: { key: string; name: string; size: number }; published: Summary; workspace: Summary }>;
    networksReason: string | null;
    countsByOutcome: Array<{ outcomeCode: string; reports: number }>;
    reports: number; ratings: Ratings; first_seen: string | null; last_seen: string | null;
    communitySignal: { available: boolean; reason: string | null; subnet: Signal | null };
  };
  ips: { nodes: Array<{ ip: string; score: number; level: string; reports: number; ratings: Ratings; first_seen: string | null; last_seen: string | null }>; nextCursor: string | null };
  publication: { version: number; publishedAt: string | null };
} };

export function shapeCheckBlock(data: CheckBlockData) {
  const c = data.block;
  const { resetsAt: _resetsAt, retryAfterSeconds, ...quota } = c.quota;
  const b = c.block;
  const network = (code: string) => {
    const n = b.networks.find((x) => x.code === code);
    return n ? { key: n.entity.key, name: n.entity.name, size: n.entity.size, published: shapeSummary(n.published), workspace: shapeSummary(n.workspace) } : null;
  };
  const s = b.communitySignal;
  return {
    body: {
      ok: true, endpoint: 'check_block', query: c.query, api_key: c.api_key, quota,
      block: {
        cidr: b.cidr, version: b.version, prefix: b.prefix, first_address: b.first_address, last_address: b.last_address, size: b.size,
        networks: { subnet: network('subnet'), asn: network('asn'), org: network('org'), reason: b.networksReason },
        counts_by_outcome: Object.fromEntries(b.countsByOutcome.map((o) => [o.outcomeCode, o.reports])),
        reports: b.reports, ratings: b.ratings, first_seen: b.first_seen, last_seen: b.last_seen,
        community_signal: {
          available: s.available, reason: s.reason,
          subnet: networkSignal(s.subnet),
        },
      },
      ips: { items: c.ips.nodes, next_cursor: c.ips.nextCursor },
      publication: { version: c.publication.version, published_at: c.publication.publishedAt },
    },
    replayed: false,
    headers: rateLimitHeaders({ dailyLimit: quota.daily_limit, remaining: quota.remaining, retryAfterSeconds }),
  };
}
