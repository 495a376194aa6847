import { defineOperation } from './operation.ts';
import { publishedCounts } from '../../domain/scoring/evidence.ts';

/** POST /risk_api/dimensions/: the raw dimensional payload without the score wrapper (unmetered). */
export const dimensionsOperation = defineOperation('dimensions', /* GraphQL */ `
  fragment Summary on RiskSummary {
    score level reports badRatings neutralRatings goodRatings feedListings reporters firstSeen lastSeen
  }
  query Dimensions($ip: String!) {
    ip(address: $ip) {
      address version subnetSource
      special { cidr name reason }
      publication { version publishedAt }
      dimensions {
        code matched reason
        entity { key name size }
        published { ...Summary }
        workspace { ...Summary }
      }
    }
  }`);

type Summary = {
  score: number; level: string; reports: number; badRatings: number; neutralRatings: number; goodRatings: number;
  feedListings: number; reporters: number; firstSeen: string | null; lastSeen: string | null;
};
type DimensionsData = { ip: {
  address: string; version: number; subnetSource: string; special: { cidr: string; name: string; reason: string } | null;
  publication: { version: number; publishedAt: string | null };
  dimensions: Array<{ code: string; matched: boolean; reason: string | null; entity: { key: string; name: string; size: number } | null; published: Summary | null; workspace: Summary | null }>;
} };

export function shapeSummary(s: Summary | null) {
  return s && {
    score: s.score, level: s.level,
    counts: publishedCounts(s),
    reporters: s.reporters, first_seen: s.firstSeen, last_seen: s.lastSeen,
  };
}

export function shapeDimensions(data: DimensionsData) {
  const ip = data.ip;
  return {
    body: {
      ok: true, endpoint: 'dimensions',
      query: { ip: ip.address },
      quota: { counted: false, reason: 'free_endpoint' },
      ip: { address: ip.address, version: ip.version, special: ip.special, subnet_source: ip.subnetSource },
      publication: { version: ip.publication.version, published_at: ip.publication.publishedAt },
      dimensions: ip.dimensions.map((d) => ({
        code: d.code, matched: d.matched, entity: d.entity, reason: d.reason,
        published: shapeSummary(d.published), workspace: shapeSummary(d.workspace),
      })),
    },
    replayed: false,
  };
}
