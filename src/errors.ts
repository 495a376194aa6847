/**
 * One error type for every transport. REST renders it as { ok: false, error, message, details? }
 * with the status below; GraphQL carries the same code in `extensions.code`.
 */
export const ERROR_STATUS = {
  missing_api_key: 401,
  invalid_api_key: 401,
  conflicting_api_keys: 400,
  invalid_json: 400,
  invalid_request: 400,
  unsupported_media_type: 415,
  payload_too_large: 413,
  method_not_allowed: 405,
  not_acceptable: 406,
  not_found: 404,
  tier_not_eligible: 403,
  email_unverified: 403,
  origin_not_allowed: 403,
  idempotency_key_reused: 409,
  rate_limited: 429,
  quota_exceeded: 429,
  idempotency_in_progress: 409,
  service_unavailable: 503,
  /** A GraphQL query stopped at its time ceiling (src/transport/graphql/ceilings.ts). */
  query_timeout: 503,
  /** A GraphQL answer over its size ceiling (src/transport/graphql/ceilings.ts). */
  response_too_large: 422,
  quota_unavailable: 503,
  database_unavailable: 503,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorDetail = { field: string; message: string };

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Extra fields merged into the REST error body (e.g. the quota object). */
    readonly extra?: Record<string, unknown>,
    /** Response headers that belong to this error (e.g. Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
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

/** `problem` names what was invalid as the caller sees it (a REST body, an MCP tool's arguments). */
export function invalidRequest(details: ErrorDetail[], problem = 'The request body is invalid'): AppError {
  const fields = [...new Set(details.map((d) => d.field))].join(', ');
  return new AppError('invalid_request', `${problem}: check ${fields}.`, details);
}
