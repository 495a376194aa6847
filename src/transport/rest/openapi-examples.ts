/**
 * Example bodies of the OpenAPI document: answers a server gave (captured from a test server after one publication,
 * with its base URL, key prefix and times replaced). Redocly's lint checks each against its schema
 * (test/unit/openapi-file.test.ts).
 */
const BASE = 'http://127.0.0.1:8080';
const PUBLISHED_AT = '2026-11-23T10:00:00.000Z';
const counts = (reports: number, bad: number) => ({ reports, bad_ratings: bad, neutral_ratings: 0, good_ratings: 0, feed_listings: 0 });
const evidence = counts(1, 1);
const unlocated = 'the geo data has no location for this address';

export const ipRequestExample = { ip: '9.9.9.9' };
export const rateRequestExample = { ip: '203.0.113.9', rating: -1, note: 'card testing' };
export const reportRequestExample = {
  kind: 'domain', key: 'Bücher.Example', title: 'Card testing', summary: 'Many small charges', outcome_code: 'fraud_watch',
  severity: 'high', tags: ['carding'], related_subjects: [{ kind: 'ipaddress', key: '198.51.100.7', role: 'source_ip' }],
};

export const scoreExample = {
  ok: true, endpoint: 'score', query: { ip: '9.9.9.9' },
  api_key: { name: 'checkout', prefix: 'rk_adDTKSHH' },
  quota: { daily_limit: 1000, used_today: 17, remaining: 983, over_limit: false },
  score: {
    overall_score: 35, overall_risk_level: 'medium', matched_count: 5, driver: 'ip',
    dimensions: [
      { code: 'ip', matched: true, score: 33, entity: { key: '9.9.9.9', name: '9.9.9.9' }, level: 'medium', weight: 1, contribution: 33, source: 'both', reason: null, evidence },
      { code: 'subnet', matched: true, score: 2, entity: { key: '9.9.9.0/24', name: '9.9.9.0/24' }, level: 'minimal', weight: 0.6, contribution: 1, source: 'both', reason: null, evidence },
      { code: 'isp', matched: true, score: 1, entity: { key: 'quad9', name: 'Quad9' }, level: 'minimal', weight: 0.4, contribution: 0, source: 'both', reason: null, evidence },
      { code: 'asn', matched: true, score: 1, entity: { key: 'AS19281', name: 'AS19281' }, level: 'minimal', weight: 0.45, contribution: 1, source: 'both', reason: null, evidence },
      { code: 'org', matched: true, score: 1, entity: { key: 'quad9', name: 'Quad9' }, level: 'minimal', weight: 0.4, contribution: 0, source: 'both', reason: null, evidence },
      { code: 'city', matched: false, score: 0, entity: null, level: null, weight: 0.2, contribution: 0, source: null, reason: unlocated, evidence: null },
      { code: 'region', matched: false, score: 0, entity: null, level: null, weight: 0.15, contribution: 0, source: null, reason: unlocated, evidence: null },
      { code: 'country', matched: false, score: 0, entity: null, level: null, weight: 0.1, contribution: 0, source: null, reason: unlocated, evidence: null },
    ],
  },
  community_signal: {
    ok: true, state: { label: 'quiet', has_spike: false },
    metrics: { lookups_10m: 0, requesters_60m: 0, spike_windows_7d: 0 },
    recent_query_windows: ['09:00', '09:10', '09:20', '09:30', '09:40', '09:50'].map((label) => ({ label, hits: 0, requesters: 0 })),
    networks: {
      subnet: { key: '9.9.9.0/24', ok: true, state: { label: 'active', has_spike: false }, metrics: { lookups_10m: 14, requesters_60m: 3, spike_windows_7d: 0 } },
      asn: { key: 'AS19281', ok: true, state: { label: 'active', has_spike: false }, metrics: { lookups_10m: 31, requesters_60m: 5, spike_windows_7d: 0 } },
    },
  },
  links: {
    ip: `${BASE}/workspace/reports/ip/9.9.9.9`,
    dimensions: {
      ip: `${BASE}/workspace/reports/ip/9.9.9.9`, subnet: `${BASE}/workspace/reports/subnet/9.9.9.0%2F24`,
      isp: `${BASE}/workspace/reports/isp/quad9`, asn: `${BASE}/workspace/reports/asn/AS19281`, org: `${BASE}/workspace/reports/org/quad9`,
    },
  },
  workspace_memory: { ratings: { good: 0, neutral: 0, bad: 1 }, last_rating: { rating: -1, note: 'mule', created_at: '2026-11-23T09:58:12.633Z' }, reports: 1 },
  publication: { version: 12, published_at: PUBLISHED_AT },
};
// No rule of the workspace covers 9.9.9.9: the score is the evidence's (overrideRuleExample shows one that does).
Object.assign(scoreExample, { override: null });

export const scoreBatchRequestExample = { ips: ['9.9.9.9', 'not-an-ip', '9.9.9.9'] };
const { ok: _ok, endpoint: _endpoint, api_key: batchKey, quota: _quota, ...scoredItem } = scoreExample;
const invalidItem = { ip: 'not-an-ip', ok: false, error: 'invalid_ip', message: 'The item is not a valid IPv4 or IPv6 address; it was not counted.' };
export const scoreBatchExample = {
  ok: true, endpoint: 'score_batch', api_key: batchKey,
  quota: { daily_limit: 1000, used_today: 18, remaining: 982, over_limit: false },
  results: [{ ok: true, ...scoredItem }, invalidItem, { ok: true, ...scoredItem }],
};

const summary = (score: number, level: string, bad: number) => ({
  score, level, counts: counts(1, bad), reporters: 1, first_seen: '2026-11-23T09:58:12.602Z', last_seen: '2026-11-23T09:58:12.633Z',
});
const located = (code: string, key: string, name: string, size: number, published: [number, string], workspace: [number, string]) => ({
  code, matched: true, entity: { key, name, size }, reason: null,
  published: summary(published[0], published[1], 0), workspace: summary(workspace[0], workspace[1], 1),
});

export const dimensionsExample = {
  ok: true, endpoint: 'dimensions', query: { ip: '9.9.9.9' }, quota: { counted: false, reason: 'free_endpoint' },
  ip: { address: '9.9.9.9', version: 4, special: null, subnet_source: 'announced' },
  publication: { version: 12, published_at: PUBLISHED_AT },
  dimensions: [
    located('ip', '9.9.9.9', '9.9.9.9', 1, [20, 'low'], [33, 'medium']),
    located('subnet', '9.9.9.0/24', '9.9.9.0/24', 256, [1, 'minimal'], [2, 'minimal']),
    located('isp', 'quad9', 'Quad9', 2304, [0, 'minimal'], [1, 'minimal']),
    located('asn', 'AS19281', 'AS19281', 1792, [1, 'minimal'], [1, 'minimal']),
    located('org', 'quad9', 'Quad9', 2304, [0, 'minimal'], [1, 'minimal']),
    ...['city', 'region', 'country'].map((code) => ({ code, matched: false, entity: null, reason: unlocated, published: null, workspace: null })),
  ],
};

export const checkBlockRequestExample = { cidr: '9.9.9.7/24', limit: 2 };
export const checkBlockExample = {
  ok: true, endpoint: 'check_block', query: { input: '9.9.9.7/24', cidr: '9.9.9.0/24', host_bits_cleared: true },
  api_key: { name: 'checkout', prefix: 'rk_adDTKSHH' },
  quota: { daily_limit: 1000, used_today: 19, remaining: 981, over_limit: false },
  block: {
    cidr: '9.9.9.0/24', version: 4, prefix: 24, first_address: '9.9.9.0', last_address: '9.9.9.255', size: '256',
    networks: {
      subnet: { key: '9.9.9.0/24', name: '9.9.9.0/24', size: 256, published: summary(1, 'minimal', 0), workspace: summary(2, 'minimal', 1) },
      asn: { key: 'AS19281', name: 'AS19281', size: 1792, published: summary(1, 'minimal', 0), workspace: summary(1, 'minimal', 1) },
      org: { key: 'quad9', name: 'Quad9', size: 2304, published: summary(0, 'minimal', 0), workspace: summary(1, 'minimal', 1) },
      reason: null,
    },
    counts_by_outcome: { fraud_watch: 2, spam: 1 },
    reports: 3, ratings: { good: 0, neutral: 0, bad: 1 },
    first_seen: '2026-11-23T09:58:12.602Z', last_seen: '2026-11-23T10:01:40.115Z',
    community_signal: {
      available: true, reason: null,
      subnet: { key: '9.9.9.0/24', ok: true, state: { label: 'active', has_spike: false }, metrics: { lookups_10m: 14, requesters_60m: 3, spike_windows_7d: 0 } },
    },
  },
  ips: {
    items: [
      { ip: '9.9.9.9', score: 35, level: 'medium', reports: 2, ratings: { good: 0, neutral: 0, bad: 1 }, first_seen: '2026-11-23T09:58:12.602Z', last_seen: '2026-11-23T09:58:12.633Z' },
      { ip: '9.9.9.10', score: 12, level: 'low', reports: 1, ratings: { good: 0, neutral: 0, bad: 0 }, first_seen: '2026-11-23T10:01:40.115Z', last_seen: '2026-11-23T10:01:40.115Z' },
    ],
    next_cursor: '9.9.9.10',
  },
  publication: { version: 12, published_at: PUBLISHED_AT },
};

export const rateExample = {
  ok: true, endpoint: 'rate', quota: { counted: false, reason: 'free_endpoint' },
  report: { ip: '203.0.113.9', rating: -1, created_at: '2026-11-23T10:04:00.368Z' },
};

export const reportExample = {
  ok: true, endpoint: 'report', query: { kind: 'domain', key: 'xn--bcher-kva.example', namespace: '' },
  quota: { counted: false, reason: 'free_endpoint' },
  memory: { requested_visibility: 'workspace', effective_visibility: 'workspace', policy_notice: '' },
  report: {
    id: 1, event_type: 'observation', outcome_code: 'fraud_watch', title: 'Card testing', summary: 'Many small charges',
    severity: 'high', status: '', tags: ['carding'], created_at: '2026-11-23T10:04:00.496Z',
    subject: { kind: 'domain', key: 'xn--bcher-kva.example', share_policy: 'clear_share' },
    related_subjects: [{ kind: 'ipaddress', key: '198.51.100.7', role: 'source_ip' }],
  },
};

export const exportRecordExample = {
  id: 1, created_at: '2026-11-23T10:04:00.496Z', subject: { kind: 'domain', key: 'xn--bcher-kva.example' },
  event_type: 'observation', outcome_code: 'fraud_watch', severity: 'high', status: '', title: 'Card testing',
  summary: 'Many small charges', tags: ['carding'], namespace: '', share_policy: 'clear_share', effective_visibility: 'workspace',
  related_subjects: [{ kind: 'ipaddress', key: '198.51.100.7', role: 'source_ip' }],
};

export const exportCsvExample = 'id,created_at,subject_kind,subject_key,event_type,outcome_code,severity,status,title,summary,tags,namespace,share_policy,effective_visibility,related_subjects\r\n'
  + '1,2026-11-23T10:04:00.496Z,"domain","xn--bcher-kva.example",observation,fraud_watch,high,"","Card testing","Many small charges","carding","",clear_share,workspace,"[{""kind"":""ipaddress"",""key"":""198.51.100.7"",""role"":""source_ip""}]"\r\n';

export const readinessExample = { ok: true, checks: { database: 'ok', counters: 'ok' }, draining: false };
export const notReadyExample = { ok: false, checks: { database: 'unreachable', counters: 'ok' }, draining: false };

/** Refusals worth showing whole; the rest are the Error schema with their code. */
export const errorExamples = {
  invalid_request: {
    ok: false, error: 'invalid_request', message: 'The request body is invalid: check outcome_code, key.',
    details: [
      { field: 'outcome_code', message: 'must be one of: fraud_confirmed, chargeback, account_takeover, credential_stuffing, fraud_watch, spam, scraping, bot_activity, abuse_other, legitimate, false_positive' },
      { field: 'key', message: 'must have at least two labels, e.g. example.com (kind domain)' },
    ],
  },
  missing_api_key: { ok: false, error: 'missing_api_key', message: 'No API key was sent. Provide it in the X-API-Key header or as an Authorization: Bearer <API_KEY> header.' },
  tier_not_eligible: {
    ok: false, error: 'tier_not_eligible',
    message: 'The Free tier does not include score. Choose an eligible API subscription tier in the workspace control plane (API mode) — rate and report stay free.',
  },
  quota_exceeded: {
    ok: false, error: 'quota_exceeded',
    message: 'The daily score quota of 1000 calls is used up; it resets at 2026-11-24T00:00:00.000Z (00:00 UTC). Upgrade the tier for more.',
    quota: { daily_limit: 1000, used_today: 1000, remaining: 0, over_limit: true, resets_at: '2026-11-24T00:00:00.000Z' },
  },
  rate_limited: {
    ok: false, error: 'rate_limited', message: 'More than 5 score calls per second with this key; slow down (this is not the daily quota).',
    burst: { limit: 5, window_s: 1 },
  },
  idempotency_key_reused: {
    ok: false, error: 'idempotency_key_reused', message: 'This Idempotency-Key was already used with a different request; use a new key for a new request.',
  },
} as const;

/** One line of a bulk NDJSON body (the schema of application/x-ndjson is a line's, as for the export). */
export const bulkNdjsonExample = {
  kind: 'ipaddress', key: '198.51.100.7', outcome_code: 'fraud_watch', severity: 'high', tags: ['carding'], idempotency_key: 'batch-7-line-1',
};
export const bulkCsvExample = 'kind,key,outcome_code,severity,tags,related_subjects,idempotency_key\r\n'
  + 'ipaddress,198.51.100.7,fraud_watch,high,carding;card-testing,,batch-7-line-1\r\n'
  + 'email,mule@example.com,chargeback,,,"[{""kind"":""ipaddress"",""key"":""2001:db8::7"",""role"":""source_ip""}]",\r\n'
  + 'ipaddress,999.1.1.1,spam,,,,\r\n';
export const bulkExample = {
  ok: true, endpoint: 'report_bulk', quota: { counted: false, reason: 'free_endpoint' }, chunk_size: 500,
  totals: { lines: 3, created: 2, replayed: 0, errors: 1 },
  results: [
    { line: 1, status: 'created', id: 4711 },
    { line: 2, status: 'created', id: 4712 },
    {
      line: 3, status: 'error', error: 'invalid_request', message: 'The report on this line is invalid: check key.',
      details: [{ field: 'key', message: 'must be a valid IPv4 or IPv6 address (kind ipaddress)' }],
    },
  ],
};

export const createOverrideRequestExample = { target: '203.0.113.0/24', action: 'deny', reason: 'card testing from this block', note: 'ticket 4711', expires_at: '2027-01-31T00:00:00Z' };
const ruleExample = {
  id: 12, target_kind: 'cidr', target: '203.0.113.0/24', action: 'deny', points: 0, reason: 'card testing from this block', note: 'ticket 4711',
  author: { kind: 'api_key', id: 3, label: 'checkout (rk_adDTKSHH)' }, expires_at: '2027-01-31T00:00:00.000Z', expired_at: null,
  created_at: '2026-11-26T07:00:00.000Z', active: true,
};
export const overrideRuleExample = { ok: true, endpoint: 'overrides_create', quota: { counted: false, reason: 'free_endpoint' }, rule: ruleExample };
export const expiredRuleExample = {
  ok: true, endpoint: 'overrides_expire', quota: { counted: false, reason: 'free_endpoint' },
  rule: { ...ruleExample, expired_at: '2026-11-26T08:00:00.000Z', active: false },
};
export const updateOverrideRequestExample = { id: 12, reason: 'card testing from this block (confirmed)', expires_at: null };
export const updatedRuleExample = {
  ok: true, endpoint: 'overrides_update', quota: { counted: false, reason: 'free_endpoint' },
  rule: { ...ruleExample, reason: 'card testing from this block (confirmed)', expires_at: null },
};
export const overrideListExample = { ok: true, endpoint: 'overrides_list', quota: { counted: false, reason: 'free_endpoint' }, rules: [ruleExample], next_cursor: null };
const { active: _active, ...recorded } = ruleExample;
export const overrideAuditExample = {
  id: 31, rule_id: 12, action: 'expire', surface: 'rest', actor: { kind: 'api_key', id: 3, label: 'checkout (rk_adDTKSHH)' },
  before: recorded, after: { ...recorded, expired_at: '2026-11-26T08:00:00.000Z' }, created_at: '2026-11-26T08:00:00.000Z',
};
