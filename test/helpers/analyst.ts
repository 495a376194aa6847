import { GraphQLClient, gql } from 'graphql-request';
import type { TestServer } from './server.ts';

/** A graphql-request client for a new workspace of the test server (on the default Free tier unless `tier` is
 *  given: reading published dimension summaries needs a score-eligible one). */
export async function analystClient(s: TestServer, workspace: string, tier?: string): Promise<GraphQLClient> {
  const { secret } = await s.createKey(workspace, tier ? { tier } : {});
  return new GraphQLClient(`${s.url}/graphql`, { headers: { 'x-api-key': secret } });
}

export type ReportSeed = {
  kind: string;
  key: string;
  outcomeCode: string;
  severity?: string;
  title?: string;
  summary?: string;
  tags?: string[];
  namespace?: string;
  sharePolicy?: string;
  relatedSubjects?: Array<{ kind: string; key: string; role?: string }>;
};

const WRITE = gql`mutation Write($input: ReportInput!) { report(input: $input) { report { id databaseId createdAt } } }`;

/** Writes a report through the public mutation; returns its global id and database id. */
export async function writeReport(
  client: GraphQLClient,
  input: ReportSeed,
): Promise<{ id: string; databaseId: number; createdAt: string }> {
  const data = await client.request<{ report: { report: { id: string; databaseId: number; createdAt: string } } }>(
    WRITE,
    { input },
  );
  return data.report.report;
}

export async function rateIp(
  client: GraphQLClient,
  ip: string,
  rating: number,
  note = '',
): Promise<{ id: string; databaseId: number }> {
  const data = await client.request<any>(
    gql`mutation($input: RateInput!) { rate(input: $input) { rating { id databaseId } } }`,
    { input: { ip, rating, note } },
  );
  return data.rate.rating;
}
