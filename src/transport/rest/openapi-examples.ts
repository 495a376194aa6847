/**
 * Example bodies of the OpenAPI document outside the catalogue (each operation's are in its own file): answers a server gave (captured from a test server after one publication,
 * with its base URL, key prefix and times replaced). Redocly's lint checks each against its schema
 * (test/unit/openapi-file.test.ts).
 */

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
