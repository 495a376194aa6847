/**
 * The one table of error codes: each code's HTTP status and, where every occurrence says the same, its
 * message. Every transport renders an AppError from it (src/transport/http/errors.ts): REST as
 * { ok: false, error, message, details? }, GraphQL with the code in `extensions.code`, MCP as a JSON-RPC
 * error or a tool error, the control plane as a page.
 */
export const ERRORS = {
  missing_api_key: {
    status: 401,
    message: 'No API key was sent. Provide it in the X-API-Key header or as an Authorization: Bearer <API_KEY> header.',
  },
  invalid_api_key: { status: 401 },
  conflicting_api_keys: { status: 400 },
  /** The control plane takes a signed-in session; an API key there is refused, not ignored. */
  api_key_not_accepted: {
    status: 401,
    message:
      'The workspace control plane accepts a signed-in session, not API keys. API keys work on /risk_api/ and /graphql.',
  },
  /** A control-plane page or /workspace/graphql without a live session. */
  unauthenticated: { status: 401 },
  invalid_json: { status: 400 },
  invalid_request: { status: 400 },
  /** A GraphQL document over a cost limit (src/transport/graphql/limits.ts); /graphql answers it inside a 200 result. */
  query_too_complex: { status: 400 },
  /** A payment-provider webhook whose signature or certificate does not verify. */
  invalid_signature: { status: 400 },
  unsupported_media_type: { status: 415 },
  payload_too_large: { status: 413 },
  method_not_allowed: { status: 405 },
  not_acceptable: { status: 406 },
  not_found: { status: 404 },
  tier_not_eligible: { status: 403 },
  email_unverified: { status: 403 },
  origin_not_allowed: { status: 403 },
  /** GET /metrics from a non-loopback or proxied client while METRICS_TOKEN is unset (transport/http/metrics-route.ts). */
  metrics_loopback_only: {
    status: 403,
    message:
      '/metrics answers direct loopback clients only. Set METRICS_TOKEN to scrape it from elsewhere with Authorization: Bearer <token>.',
  },
  /** GET /metrics without the right Authorization: Bearer <METRICS_TOKEN>. */
  metrics_token_invalid: { status: 401, message: '/metrics needs the header Authorization: Bearer <METRICS_TOKEN>.' },
  csrf_token_invalid: {
    status: 403,
    message:
      'The form expired or did not come from this site (CSRF token missing or wrong). Reload the page and try again.',
  },
  idempotency_key_reused: { status: 409 },
  rate_limited: { status: 429 },
  quota_exceeded: { status: 429 },
  idempotency_in_progress: { status: 409 },
  /** An override rule on a target that already has one in force: expire that one first. */
  override_exists: { status: 409 },
  /** An override rule past the workspace's cap of rules in force. */
  override_limit_reached: { status: 409 },
  /** Updating or expiring an override rule that is no longer in force. */
  override_not_active: { status: 409 },
  /** A watch on a target the workspace already watches: one watch per target. */
  watch_exists: { status: 409 },
  /** A watch past the workspace's cap of watches. */
  watch_limit_reached: { status: 409 },
  /** A webhook endpoint past the workspace's cap (src/domain/webhooks/schemas.ts). */
  webhook_endpoint_limit_reached: { status: 409 },
  service_unavailable: { status: 503 },
  /** A GraphQL query stopped at its time ceiling (src/transport/graphql/ceilings.ts). */
  query_timeout: { status: 503 },
  /** A GraphQL answer over its size ceiling (src/transport/graphql/ceilings.ts). */
  response_too_large: { status: 422 },
  quota_unavailable: { status: 503 },
  /**
   * The database dropped or refused the connection mid-request (restart, failover). A write that got this answer
   * was not acknowledged: retried with the same Idempotency-Key it is stored exactly once.
   */
  database_unavailable: {
    status: 503,
    message:
      'The database connection failed during this request. Retry shortly; send writes with an Idempotency-Key so a retry never stores them twice.',
  },
  internal_error: { status: 500, message: 'Something went wrong on our side.' },
} as const satisfies Record<string, { status: number; message?: string }>;

export type ErrorCode = keyof typeof ERRORS;
export type ErrorDetail = { field: string; message: string };

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    /** Without one, the table's message for the code. */
    message?: string,
    readonly details?: ErrorDetail[],
    /** Extra fields merged into the REST error body (e.g. the quota object). */
    readonly extra?: Record<string, unknown>,
    /** Response headers that belong to this error (e.g. Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message ?? (ERRORS[code] as { message?: string }).message ?? code);
    this.status = ERRORS[code].status;
  }

  toBody(): Record<string, unknown> {
    return {
      ok: false,
      error: this.code,
      message: this.message,
      ...(this.details ? { details: this.details } : {}),
      ...this.extra,
    };
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** A failure that is ours, not the caller's: the request id is the only thing the caller is told, to quote. */
export function internalError(requestId: string): AppError {
  return new AppError(
    'internal_error',
    `${ERRORS.internal_error.message} Quote request id ${requestId} when you contact support.`,
    undefined,
    { request_id: requestId },
  );
}

/** `problem` names what was invalid as the caller sees it (a REST body, an MCP tool's arguments). */
export function invalidRequest(details: ErrorDetail[], problem = 'The request body is invalid'): AppError {
  const fields = [...new Set(details.map((d) => d.field))].join(', ');
  return new AppError('invalid_request', `${problem}: check ${fields}.`, details);
}
