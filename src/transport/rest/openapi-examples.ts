/**
 * Example bodies of the OpenAPI document outside the catalogue (each operation's are in its own file): answers a server gave (captured from a test server after one publication,
 * with its base URL, key prefix and times replaced). Redocly's lint checks each against its schema
 * (test/unit/openapi-file.test.ts).
 */

export const exportRecordExample = {
  id: 1,
  created_at: '2026-11-23T10:04:00.496Z',
  subject: { kind: 'domain', key: 'xn--bcher-kva.example' },
  event_type: 'observation',
  outcome_code: 'fraud_watch',
  severity: 'high',
  status: '',
  title: 'Card testing',
  summary: 'Many small charges',
  tags: ['carding'],
  namespace: '',
  share_policy: 'clear_share',
  effective_visibility: 'workspace',
  related_subjects: [{ kind: 'ipaddress', key: '198.51.100.7', role: 'source_ip' }],
};

export const exportCsvExample =
  'id,created_at,subject_kind,subject_key,event_type,outcome_code,severity,status,title,summary,tags,namespace,share_policy,effective_visibility,related_subjects\r\n' +
  '1,2026-11-23T10:04:00.496Z,"domain","xn--bcher-kva.example",observation,fraud_watch,high,"","Card testing","Many small charges","carding","",clear_share,workspace,"[{""kind"":""ipaddress"",""key"":""198.51.100.7"",""role"":""source_ip""}]"\r\n';

export const readinessExample = { ok: true, checks: { database: 'ok', counters: 'ok' }, draining: false };
export const notReadyExample = { ok: false, checks: { database: 'unreachable', counters: 'ok' }, draining: false };

/** Refusals worth showing whole; the rest are the Error schema with their code. */
export const errorExamples = {
  invalid_request: {
    ok: false,
    error: 'invalid_request',
    message: 'The request body is invalid: check outcome_code, key.',
    details: [
      {
        field: 'outcome_code',
        message:
          'must be one of: fraud_confirmed, chargeback, account_takeover, credential_stuffing, fraud_watch, spam, scraping, bot_activity, abuse_other, legitimate, false_positive',
      },
      { field: 'key', message: 'must have at least two labels, e.g. example.com (kind domain)' },
    ],
  },
  missing_api_key: {
    ok: false,
    error: 'missing_api_key',
    message: 'No API key was sent. Provide it in the X-API-Key header or as an Authorization: Bearer <API_KEY> header.',
  },
  tier_not_eligible: {
    ok: false,
    error: 'tier_not_eligible',
    message:
      'The Free tier does not include score. Choose an eligible API subscription tier in the workspace control plane (API mode) — rate and report stay free.',
  },
  quota_exceeded: {
    ok: false,
    error: 'quota_exceeded',
    message:
      'The daily score quota of 1000 calls is used up; it resets at 2026-11-24T00:00:00.000Z (00:00 UTC). Upgrade the tier for more.',
    quota: {
      daily_limit: 1000,
      used_today: 1000,
      remaining: 0,
      over_limit: true,
      resets_at: '2026-11-24T00:00:00.000Z',
    },
  },
  rate_limited: {
    ok: false,
    error: 'rate_limited',
    message: 'More than 5 score calls per second with this key; slow down (this is not the daily quota).',
    burst: { limit: 5, window_s: 1 },
  },
  idempotency_key_reused: {
    ok: false,
    error: 'idempotency_key_reused',
    message: 'This Idempotency-Key was already used with a different request; use a new key for a new request.',
  },
} as const;

import { recordedRuleExample as recorded } from '../operations/overrides.ts';

export const overrideAuditExample = {
  id: 31,
  rule_id: 12,
  action: 'expire',
  surface: 'rest',
  actor: { kind: 'api_key', id: 3, label: 'checkout (rk_adDTKSHH)' },
  before: recorded,
  after: { ...recorded, expired_at: '2026-11-26T08:00:00.000Z' },
  created_at: '2026-11-26T08:00:00.000Z',
};
