/**
 * The GraphQL document the "score GraphQL" scenario sends: the whole score answer, the selection the REST facade
 * executed for POST /risk_api/score/ while it ran GraphQL documents (before the operations catalogue), with its
 * snake_case aliases, so GraphQL rows stay comparable across runs and with REST's answer. When Query.score does not
 * exist, the probe sees a validation error and the scenario is reported as not available.
 */
const SCORE_DOCUMENT = /* GraphQL */ `
  query Score($ip: String!) {
    score(ip: $ip) {
      api_key: apiKey { name prefix }
      quota { daily_limit: dailyLimit used_today: usedToday remaining over_limit: overLimit resetsAt retryAfterSeconds }
      ip
      score {
        overall_score: overallScore overall_risk_level: overallRiskLevel matched_count: matchedCount driver confidence
        layers {
          published_score: publishedScore published_level: publishedLevel own_change: ownChange
          own_verdict: ownVerdict own_verdict_at: ownVerdictAt explanation
        }
        dimensions {
          code matched score entity { key name } level weight contribution source reason
          evidence { reports bad_ratings: badRatings neutral_ratings: neutralRatings good_ratings: goodRatings feed_listings: feedListings }
        }
      }
      communitySignal {
        ok label hasSpike lookups10m requesters60m spikeWindows7d
        recentQueryWindows { label hits requesters }
        networks {
          subnet { key ok label hasSpike lookups10m requesters60m spikeWindows7d }
          asn { key ok label hasSpike lookups10m requesters60m spikeWindows7d }
        }
      }
      override { ruleId targetKind target action points reason expiresAt evidenceScore evidenceLevel explanation }
      memory { goodRatings neutralRatings badRatings reports lastRating { rating note createdAt } }
      reportLink
      dimensionLinks { code url }
      publication { version publishedAt }
    }
  }`;
const FALLBACK = 'query Score($ip: String!) { score(ip: $ip) { __typename } }';

type TypeRef = { kind: string; name: string | null; ofType: TypeRef | null };
type Field = { name: string; args: Array<{ type: TypeRef }>; type: TypeRef };
const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';

async function introspect(graphqlUrl: string, apiKey: string, typeName: string): Promise<Field[] | null> {
  const res = await fetch(graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({
      query: `{ __type(name: ${JSON.stringify(typeName)}) { fields { name args { type { ${TYPE_REF} } } type { ${TYPE_REF} } } } }`,
    }),
  });
  const json = (await res.json()) as { data?: { __type: { fields: Field[] | null } | null } };
  return json.data?.__type?.fields ?? null;
}

export async function scoreGraphQLQuery(
  graphqlUrl: string,
  apiKey: string,
): Promise<{ query: string; source: string }> {
  const score = (await introspect(graphqlUrl, apiKey, 'Query'))?.find((f) => f.name === 'score');
  return score
    ? { query: SCORE_DOCUMENT, source: 'the whole score answer' }
    : { query: FALLBACK, source: 'placeholder (Query.score absent)' };
}
