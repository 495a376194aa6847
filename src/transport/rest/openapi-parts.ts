import { ERRORS, type ErrorCode } from '../../errors.ts';
import { IDEMPOTENCY_TTL_HOURS } from '../../domain/memory/idempotency.ts';
import { errorExamples } from './openapi-examples.ts';

/** The reusable parts of the OpenAPI document: headers, header parameters, and the error responses of a route. */
export const ref = (kind: 'schemas' | 'headers' | 'parameters', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

const seconds = { type: 'integer', minimum: 0 };

export const headers = {
  RequestId: {
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: 128 },
    description:
      "The request's id: the caller's own X-Request-Id when it is 1-128 characters of letters, digits and `.:_+/=-`, " +
      'otherwise a new UUID. Every log line of the request carries it; quote it when reporting a problem.',
  },
  RateLimitLimit: { required: true, schema: seconds, description: "The daily score limit of the workspace's tier." },
  RateLimitRemaining: { required: true, schema: seconds, description: 'score calls left today (after this one).' },
  RateLimitReset: { required: true, schema: seconds, description: 'Seconds until the count resets at 00:00 UTC.' },
  RateLimitPolicy: {
    required: true,
    schema: { type: 'string', pattern: '^[0-9]+;w=86400$' },
    description: '`<daily limit>;w=86400` (draft-ietf-httpapi-ratelimit-headers).',
  },
  RetryAfter: {
    required: true,
    schema: seconds,
    description: 'Seconds to wait: to 00:00 UTC for quota_exceeded, 1 for rate_limited.',
  },
  RetryAfterWhenKnown: {
    required: false,
    schema: seconds,
    description:
      'Seconds to wait: 5 for quota_unavailable, 1 for database_unavailable; absent while the server shuts down.',
  },
  Allow: {
    required: true,
    schema: { type: 'string' },
    description: 'The methods the path answers, e.g. `POST` or `GET, POST`.',
  },
  IdempotentReplayed: {
    required: true,
    schema: { const: 'true' },
    description:
      'This is the stored answer to an earlier request with the same Idempotency-Key; nothing new was written.',
  },
  ContentDisposition: {
    required: true,
    schema: { type: 'string' },
    description: '`attachment; filename="reports.ndjson"` or `reports.csv`.',
  },
  CacheControl: { required: true, schema: { const: 'no-store' }, description: 'Exports and metrics are never cached.' },
  WwwAuthenticate: {
    required: true,
    schema: { const: 'Bearer realm="metrics"' },
    description: 'The scheme /metrics expects (RFC 6750).',
  },
  NextCursor: {
    required: false,
    schema: { type: 'string' },
    description:
      'Present when more reports match than this answer holds: pass it as `cursor` (with the same filters) for the next page.',
  },
  Link: {
    required: false,
    schema: { type: 'string' },
    description: 'GET only, with X-Next-Cursor: `</risk_api/export/?…&cursor=…>; rel="next"` (RFC 8288).',
  },
};

export const rateLimitHeaders = {
  'RateLimit-Limit': ref('headers', 'RateLimitLimit'),
  'RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
  'RateLimit-Reset': ref('headers', 'RateLimitReset'),
  'RateLimit-Policy': ref('headers', 'RateLimitPolicy'),
};
export const requestIdHeader = { 'X-Request-Id': ref('headers', 'RequestId') };

export const parameters = {
  RequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    schema: { type: 'string', maxLength: 128 },
    description:
      "Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`.",
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    description:
      `Makes a retry safe: a request with the same key and the same body within ${IDEMPOTENCY_TTL_HOURS} hours gets the first answer ` +
      '(200, Idempotent-Replayed: true) and writes nothing; the same key with another body is 409 idempotency_key_reused. ' +
      `Keys are per workspace and kept for at least ${IDEMPOTENCY_TTL_HOURS} hours (removed by an hourly sweep after that).`,
    example: 'checkout-7f3a9c-rating',
  },
};

/** The refusals shown whole, referenced by every error response that may carry them. */
export const examples = Object.fromEntries(
  Object.entries(errorExamples).map(([code, value]) => [code, { summary: code, value }]),
);

/** Headers each refusal status carries besides X-Request-Id. */
const STATUS_HEADERS: Record<number, Record<string, unknown>> = {
  405: { Allow: ref('headers', 'Allow') },
  429: { 'Retry-After': ref('headers', 'RetryAfter'), ...rateLimitHeaders },
  503: { 'Retry-After': ref('headers', 'RetryAfterWhenKnown') },
};

const WHEN: Partial<Record<ErrorCode, string>> = {
  missing_api_key: 'no key in X-API-Key or Authorization: Bearer',
  invalid_api_key: 'an unknown, malformed or revoked key, or an Authorization header that is not Bearer',
  conflicting_api_keys: 'X-API-Key and Authorization: Bearer carry different keys',
  invalid_json: 'the body is not JSON',
  invalid_request: 'a field, parameter or header is invalid (details names each)',
  unsupported_media_type: 'Content-Type is not application/json',
  payload_too_large: 'the body is over MAX_BODY_BYTES',
  method_not_allowed: 'another method than the path answers (see Allow)',
  metrics_token_invalid: 'METRICS_TOKEN is set and the request did not send it as Authorization: Bearer',
  metrics_loopback_only:
    'METRICS_TOKEN is not set and the client is not a direct loopback one (a forwarding header counts as not direct)',
  tier_not_eligible: "the workspace's tier does not include score",
  idempotency_key_reused: 'the Idempotency-Key was used with another body',
  quota_exceeded: 'the daily score quota is used up',
  rate_limited: "more score calls per second with this key than the tier's burst limit",
  quota_unavailable: 'the counter store is unreachable: score fails closed',
  database_unavailable: 'the database dropped the connection; retry writes with the same Idempotency-Key',
  service_unavailable: 'the server is shutting down',
  internal_error: 'unexpected; logged under request_id',
};

/** The error responses of a route, one per status, each naming the codes it may carry (`when`: this route's own causes). */
export function errorResponses(
  codes: ErrorCode[],
  when: Partial<Record<ErrorCode, string>> = {},
): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, group]) => {
      const examples = group.filter((c) => c in errorExamples).map((c) => [c, { $ref: `#/components/examples/${c}` }]);
      return [
        String(status),
        {
          description: `${group.map((c) => `\`${c}\`${(when[c] ?? WHEN[c]) ? `: ${when[c] ?? WHEN[c]}` : ''}`).join('; ')}.`,
          headers: { ...requestIdHeader, ...STATUS_HEADERS[status] },
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/Error', properties: { error: { enum: group } } },
              ...(examples.length ? { examples: Object.fromEntries(examples) } : {}),
            },
          },
        },
      ];
    }),
  );
}
