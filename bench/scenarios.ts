/**
 * What each scenario sends. Requests are pre-built (the load generator then sends ready bytes:
 * no per-request building in the generator, which shares the CPU with the server), over the data
 * set's IPs and rotating over the keys.
 */

import { METERED_FLOOR_KEY } from './floor-answer.ts';

/** One request as the generators take it (wrk through bench/load.ts; autocannon in soak.ts). */
export type Request = { method?: string; path: string; headers: Record<string, string>; body?: string };

export type ScenarioName =
  | 'floor-http'
  | 'floor-metered'
  | 'floor-yoga'
  | 'score-rest'
  | 'score-rest-workers'
  | 'score-rest-written'
  | 'score-rest-overrides'
  | 'score-graphql'
  | 'score-mcp'
  | 'score-batch'
  | 'score-batch-1'
  | 'rate'
  | 'report'
  | 'report-bulk'
  | 'dimensions'
  | 'analyst-graphql'
  | 'crowdsec-fresh'
  | 'crowdsec-decided';

export type Scenario = {
  name: ScenarioName;
  label: string;
  path: string;
  /** The body for the n-th distinct request (n selects the IP; `batch` holds the request's IPs, [ip] but for a batch). */
  body: (ip: string, n: number, batch: readonly string[]) => string;
  /** Set: each request carries this many distinct IPs (`batch`), and its CPU is also reported per IP. */
  ipsPerRequest?: number;
  /** Set: a GET to this path for the IP instead of a POST of `body` to `path`. */
  get?: (ip: string) => string;
  /** GraphQL answers errors with status 200: such bodies count as failures. */
  graphql: boolean;
  /** Which floor its requests/s are compared with. */
  floor: 'floor-http' | 'floor-metered' | 'floor-yoga' | null;
  /** Headers the protocol needs beyond JSON and the key. */
  headers?: Record<string, string>;
  /** An MCP tool answers a refusal with status 200 and `"isError":true`: such bodies count as failures. */
  mcp?: boolean;
  /** Measured with the bench workspace's override rules in force (bench/overrides.ts, created before the row). */
  overrides?: boolean;
  /** Sent for the IPs the bench workspace rated and reported (seed.ts), not the whole data set. */
  written?: boolean;
  /** Reports per request (the bulk report): the table shows lines/s beside req/s. */
  linesPerRequest?: number;
  /** Distinct requests the row rotates over, when its bodies are too large for the usual 16,384. */
  rotation?: number;
  /** A body containing this text counts as failed (a bulk answer with a refused line). */
  failMarker?: string;
  /** Served by this many processes (`WORKERS`): the row gets a service of its own, started with that setting. */
  workers?: number;
};

/** Lines of one bulk report request: one chunk (one transaction) per request, as a pipeline sending 500-line files. */
const BULK_LINES = 500;
/** 198.18.0.0/15 (RFC 2544: benchmarking): IPs no other row uses, so a bulk line never lands on a scored IP. */
const benchIp = (i: number) => `198.${18 + ((i >> 16) & 1)}.${(i >> 8) & 255}.${i & 255}`;

/** A stateless MCP tools/call as an agent host sends it (no initialize round trip: the server keeps no session). */
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

/** IPs per score-batch request: the endpoint's bound. */
export const BATCH_IPS = 100;

const OUTCOMES = [
  'fraud_confirmed',
  'chargeback',
  'credential_stuffing',
  'fraud_watch',
  'spam',
  'bot_activity',
  'legitimate',
];
const SEVERITIES = ['low', 'medium', 'high', 'critical'];

/**
 * Reads of the analyst graph, in turn (the n-th request sends document n % 4): a subject walked
 * three hops, a filtered page of the workspace's reports, an IP's ratings with its dimensions,
 * and the aggregates. An IP nothing was written about answers `subject: null` (still a success).
 */
const ANALYST_QUERIES = [
  `query Walk($ip: String!) { subject(kind: ipaddress, key: $ip) { id kind key
    reports(first: 5) { totalCount nodes { databaseId outcomeCode severity createdAt
      relatedSubjects { role subject { kind key reports(first: 3) { totalCount nodes { outcomeCode } } } } } } } }`,
  `query Page($severity: [Severity!]) { reports(first: 20, filter: { severity: $severity, tags: ["checkout"] }) { totalCount
    pageInfo { hasNextPage endCursor } edges { cursor node { databaseId title severity createdAt subject { kind key } } } } }`,
  `query Ratings($ip: String!) { ratingsOfIp(ip: $ip, first: 10) { totalCount nodes { rating note createdAt } }
    subject(kind: ipaddress, key: $ip) { relatedSubjects { roles sharedReports subject { kind key } }
      ipDimensions { dimensions { code entity { key name } published { score level } } } } }`,
  `query Aggregates($from: DateTime!, $to: DateTime!) { reportCountsByOutcome(from: $from, to: $to) { day outcomeCode count }
    topSubjects(limit: 5) { reports subject { kind key } } }`,
].map((q) => q.replace(/\s+/g, ' '));

export function scenarios(scoreQuery: string): Record<ScenarioName, Scenario> {
  const json = (v: unknown) => JSON.stringify(v);
  return {
    'floor-http': {
      name: 'floor-http',
      label: 'bare node:http (floor)',
      path: '/risk_api/score/',
      body: (ip) => json({ ip }),
      graphql: false,
      floor: null,
    },
    'floor-metered': {
      name: 'floor-metered',
      label: 'bare node:http + key HMAC + Redis quota step + JSON per call (metered floor)',
      path: '/risk_api/score/',
      body: (ip) => json({ ip }),
      graphql: false,
      floor: 'floor-http',
      headers: { 'x-api-key': METERED_FLOOR_KEY },
    },
    'floor-yoga': {
      name: 'floor-yoga',
      label: 'bare yoga `{ hello }` (floor)',
      path: '/graphql',
      body: () => json({ query: '{ hello }' }),
      graphql: true,
      floor: null,
    },
    // Held to the metered floor (issue 34): what any metered answer pays (key, quota step, JSON) is not the score's cost.
    'score-rest': {
      name: 'score-rest',
      label: 'score REST',
      path: '/risk_api/score/',
      body: (ip) => json({ ip }),
      graphql: false,
      floor: 'floor-metered',
    },
    // The same calls to a service started with WORKERS=2 (issue 19 item 5): node:cluster, two processes on one port.
    'score-rest-workers': {
      name: 'score-rest-workers',
      label: 'score REST, WORKERS=2',
      path: '/risk_api/score/',
      body: (ip) => json({ ip }),
      graphql: false,
      floor: 'floor-http',
      workers: 2,
    },
    'score-rest-written': {
      name: 'score-rest-written',
      label: 'score REST, IPs the workspace wrote about',
      path: '/risk_api/score/',
      body: (ip) => json({ ip }),
      graphql: false,
      floor: 'floor-http',
      written: true,
    },
    'score-rest-overrides': {
      name: 'score-rest-overrides',
      label: 'score REST, 10,000 override rules in force (10% of the IPs covered)',
      path: '/risk_api/score/',
      body: (ip) => json({ ip }),
      graphql: false,
      floor: 'floor-http',
      overrides: true,
    },
    'score-graphql': {
      name: 'score-graphql',
      label: 'score GraphQL',
      path: '/graphql',
      body: (ip) => json({ query: scoreQuery, variables: { ip } }),
      graphql: true,
      floor: 'floor-yoga',
    },
    'score-mcp': {
      name: 'score-mcp',
      label: 'mcp score_ip',
      path: '/mcp',
      graphql: false,
      floor: 'floor-http',
      headers: MCP_HEADERS,
      mcp: true,
      body: (ip, n) =>
        json({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'score_ip', arguments: { ip } } }),
    },
    // The batch at its bound: 100 distinct IPs per call (the enterprise keys' burst limit of 500/s is 5 batches per key per second).
    'score-batch': {
      name: 'score-batch',
      label: `score REST batch of ${BATCH_IPS} IPs`,
      path: '/risk_api/score/batch/',
      graphql: false,
      floor: 'floor-http',
      ipsPerRequest: BATCH_IPS,
      body: (_ip, _n, batch) => json({ ips: batch }),
    },
    // The same endpoint with one IP: with the row above it splits a batch's CPU into a part per request and a part per IP.
    'score-batch-1': {
      name: 'score-batch-1',
      label: 'score REST batch of 1 IP',
      path: '/risk_api/score/batch/',
      graphql: false,
      floor: 'floor-http',
      body: (ip) => json({ ips: [ip] }),
    },
    rate: {
      name: 'rate',
      label: 'rate',
      path: '/risk_api/rate/',
      graphql: false,
      floor: 'floor-http',
      body: (ip, n) => json({ ip, rating: (n % 3) - 1, note: n % 4 === 0 ? `checkout ${n}: card declined twice` : '' }),
    },
    report: {
      name: 'report',
      label: 'report',
      path: '/risk_api/report/',
      graphql: false,
      floor: 'floor-http',
      body: (ip, n) =>
        json({
          kind: 'ipaddress',
          key: ip,
          outcome_code: OUTCOMES[n % OUTCOMES.length],
          severity: SEVERITIES[n % SEVERITIES.length],
          title: 'Checkout velocity',
          summary: `Order ${n}: ${1 + (n % 9)} cards tried in ten minutes`,
          tags: ['checkout', `bench-${n % 16}`],
          visibility: n % 2 ? 'community' : 'workspace',
          related_subjects: [{ kind: 'account', key: `acct-${n % 5000}`, role: 'account' }],
        }),
    },
    'report-bulk': {
      name: 'report-bulk',
      label: `bulk report NDJSON, ${BULK_LINES} lines/request`,
      path: '/risk_api/report/bulk/',
      graphql: false,
      floor: null,
      headers: { 'content-type': 'application/x-ndjson' },
      linesPerRequest: BULK_LINES,
      rotation: 32,
      failMarker: '"status":"error"',
      body: (_ip, n) =>
        `${Array.from({ length: BULK_LINES }, (_, i) => {
          const k = n * BULK_LINES + i;
          return json({
            kind: 'ipaddress',
            key: benchIp(k),
            outcome_code: OUTCOMES[k % OUTCOMES.length],
            severity: SEVERITIES[k % SEVERITIES.length],
            title: 'Nightly fraud export',
            tags: ['pipeline', `bench-${k % 16}`],
            related_subjects: [{ kind: 'account', key: `acct-${k % 5000}`, role: 'account' }],
          });
        }).join('\n')}\n`,
    },
    dimensions: {
      name: 'dimensions',
      label: 'dimensions REST',
      path: '/risk_api/dimensions/',
      body: (ip) => json({ ip }),
      graphql: false,
      floor: 'floor-http',
    },
    'analyst-graphql': {
      name: 'analyst-graphql',
      label: 'analyst graph GraphQL reads',
      path: '/graphql',
      graphql: true,
      floor: 'floor-yoga',
      body: (ip, n) => {
        const query = ANALYST_QUERIES[n % ANALYST_QUERIES.length]!;
        const now = Date.now();
        const variables = [
          { ip },
          { severity: [SEVERITIES[n % SEVERITIES.length]!, 'critical'] },
          { ip },
          { from: new Date(now - 7 * 86_400_000).toISOString(), to: new Date(now + 86_400_000).toISOString() },
        ][n % ANALYST_QUERIES.length];
        return json({ query, variables });
      },
    },
    // The peer (bench/crowdsec.ts): CrowdSec LAPI's bouncer lookup, `X-Api-Key` added with the keys.
    'crowdsec-fresh': {
      name: 'crowdsec-fresh',
      label: 'CrowdSec LAPI decision lookup, IPs without a decision',
      path: '/v1/decisions',
      body: () => '',
      graphql: false,
      floor: null,
      get: (ip) => `/v1/decisions?ip=${ip}`,
    },
    'crowdsec-decided': {
      name: 'crowdsec-decided',
      label: 'CrowdSec LAPI decision lookup, decided IPs',
      path: '/v1/decisions',
      body: () => '',
      graphql: false,
      floor: null,
      get: (ip) => `/v1/decisions?ip=${ip}`,
    },
  };
}

/** `count` distinct requests (IPs spread by a prime stride, keys rotating): the list the load sends in turn. */
export function requestsOf(
  s: Scenario,
  ips: readonly string[],
  keys: readonly string[],
  count: number,
  first = 0,
): Request[] {
  const out: Request[] = [];
  for (let n = first; n < first + count; n++) {
    const ip = ips[(n * 7919) % ips.length]!;
    // A batch takes the next ipsPerRequest IPs of the same stride, so its IPs are distinct while the data set is larger.
    const k = s.ipsPerRequest ?? 1;
    const batch = k === 1 ? [ip] : Array.from({ length: k }, (_, j) => ips[((n * k + j) * 7919) % ips.length]!);
    const headers: Record<string, string> = s.get
      ? { ...s.headers }
      : { 'content-type': 'application/json', ...s.headers };
    if (keys.length) headers['x-api-key'] = keys[n % keys.length]!;
    out.push(
      s.get
        ? { method: 'GET', path: s.get(ip), headers }
        : { method: 'POST', path: s.path, headers, body: s.body(ip, n, batch) },
    );
  }
  return out;
}

/** One request list per connection; `perConnection` distinct IPs each, keys rotating. */
export function requestLists(
  s: Scenario,
  ips: readonly string[],
  keys: readonly string[],
  connections: number,
  perConnection = 512,
): Request[][] {
  const lists: Request[][] = [];
  for (let c = 0; c < connections; c++) lists.push(requestsOf(s, ips, keys, perConnection, c * perConnection));
  return lists;
}
