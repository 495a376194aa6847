import { z } from 'zod';
import { ERRORS } from '../../errors.ts';
import { ipQuerySchema, rateInputSchema, reportInputSchema } from '../../domain/memory/schemas.ts';

/**
 * OpenAPI 3.1 for the REST facade. Request bodies are generated from the same zod schemas
 * that validate requests (renamed to their snake_case wire names), so the document cannot
 * drift from what the service accepts.
 */
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function wireNames(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(wireNames);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'properties' && typeof v === 'object' && v) {
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [snake(p), wireNames(s)]));
    } else if (k === 'required' && Array.isArray(v)) {
      out[k] = v.map((p) => snake(String(p)));
    } else {
      out[k] = wireNames(v);
    }
  }
  return out;
}

/** A zod request schema as JSON Schema in wire (snake_case) names; also the MCP tools' input schemas. */
export function bodySchema(schema: z.ZodType) {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return wireNames(json);
}

export const errorBody = {
  type: 'object', required: ['ok', 'error', 'message'],
  properties: {
    ok: { const: false }, error: { type: 'string', enum: Object.keys(ERRORS) }, message: { type: 'string' },
    details: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } } },
    request_id: { type: 'string', description: 'Present on internal_error.' },
  },
};
const freeQuota = { type: 'object', properties: { counted: { const: false }, reason: { const: 'free_endpoint' } } };
const errors = (...codes: Array<keyof typeof ERRORS>) => Object.fromEntries(
  [...new Set(codes.map((c) => ERRORS[c].status))].map((status) => [String(status), {
    description: codes.filter((c) => ERRORS[c].status === status).join(', '),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  }]));
const writeErrors = errors('missing_api_key', 'invalid_api_key', 'conflicting_api_keys', 'invalid_json', 'invalid_request',
  'unsupported_media_type', 'payload_too_large', 'method_not_allowed', 'idempotency_key_reused', 'database_unavailable', 'internal_error');
const idempotencyHeader = {
  name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 },
  description: 'Makes a retry return the first response without writing twice (kept at least 24 hours, per workspace).',
};

const int = { type: 'integer' };
const str = { type: 'string' };
const rateLimitHeaderDocs = {
  'RateLimit-Limit': { schema: int, description: 'Daily score limit.' },
  'RateLimit-Remaining': { schema: int, description: 'Calls left today.' },
  'RateLimit-Reset': { schema: int, description: 'Seconds until 00:00 UTC.' },
  'RateLimit-Policy': { schema: str, description: '<limit>;w=86400' },
};
const counts = { type: 'object', properties: { reports: int, bad_ratings: int, neutral_ratings: int, good_ratings: int, feed_listings: int } };
export const scoreResponse = {
  type: 'object', required: ['ok', 'endpoint', 'query', 'api_key', 'quota', 'score', 'community_signal'],
  properties: {
    ok: { const: true }, endpoint: { const: 'score' }, query: { type: 'object', properties: { ip: str } },
    api_key: { type: 'object', properties: { name: str, prefix: str } },
    quota: { type: 'object', properties: { daily_limit: int, used_today: int, remaining: int, over_limit: { type: 'boolean', description: 'true when remaining is 0: the next score today is refused' } } },
    score: { type: 'object', properties: {
      overall_score: { type: 'integer', minimum: 0, maximum: 100 },
      overall_risk_level: { type: 'string', enum: ['minimal', 'low', 'medium', 'high', 'critical'] },
      matched_count: int, driver: { type: ['string', 'null'] },
      dimensions: { type: 'array', minItems: 8, maxItems: 8, items: { type: 'object', properties: {
        code: { type: 'string', enum: ['ip', 'subnet', 'isp', 'asn', 'org', 'city', 'region', 'country'] },
        matched: { type: 'boolean' }, score: int, entity: { type: ['object', 'null'], properties: { key: str, name: str } },
        level: { type: ['string', 'null'] }, weight: { type: 'number' }, contribution: int,
        source: { type: ['string', 'null'], enum: ['published', 'workspace', 'both', null] }, reason: { type: ['string', 'null'] },
        evidence: { anyOf: [counts, { type: 'null' }] },
      } } },
    } },
    community_signal: { type: 'object', properties: {
      ok: { type: 'boolean' },
      state: { type: 'object', properties: { label: { type: 'string', enum: ['quiet', 'active', 'converging', 'spiking', 'unavailable'] }, has_spike: { type: 'boolean' } } },
      metrics: { type: 'object', properties: { lookups_10m: int, requesters_60m: int, spike_windows_7d: int } },
      recent_query_windows: { type: 'array', items: { type: 'object', properties: { label: str, hits: int, requesters: int } } },
    } },
    links: { type: 'object', properties: { ip: str, dimensions: { type: 'object', additionalProperties: str } } },
    workspace_memory: { type: 'object', properties: {
      ratings: { type: 'object', properties: { good: int, neutral: int, bad: int } },
      last_rating: { type: ['object', 'null'], properties: { rating: int, note: str, created_at: str } }, reports: int,
    } },
    publication: { type: 'object', properties: { version: int, published_at: { type: ['string', 'null'] } } },
  },
};

const summary = {
  type: ['object', 'null'], properties: {
    score: int, level: str, counts, reporters: int,
    first_seen: { type: ['string', 'null'], format: 'date-time' }, last_seen: { type: ['string', 'null'], format: 'date-time' },
  },
};
export const dimensionsResponse = {
  type: 'object', required: ['ok', 'endpoint', 'query', 'ip', 'dimensions'],
  properties: {
    ok: { const: true }, endpoint: { const: 'dimensions' }, query: { type: 'object', properties: { ip: str } }, quota: freeQuota,
    ip: { type: 'object', properties: {
      address: str, version: { type: 'integer', enum: [4, 6] }, subnet_source: str,
      special: { type: ['object', 'null'], properties: { cidr: str, name: str, reason: str }, description: 'Set for special-purpose addresses (private, loopback, documentation, ...).' },
    } },
    publication: { type: 'object', properties: { version: int, published_at: { type: ['string', 'null'] } } },
    dimensions: { type: 'array', items: { type: 'object', properties: {
      code: { type: 'string', enum: ['ip', 'subnet', 'isp', 'asn', 'org', 'city', 'region', 'country'] }, matched: { type: 'boolean' },
      entity: { type: ['object', 'null'], properties: { key: str, name: str, size: { type: 'number', description: 'Addresses in the entity.' } } },
      reason: { type: ['string', 'null'] },
      published: { ...summary, description: 'The published (global) summary; null when none.' },
      workspace: { ...summary, description: 'The calling workspace\'s own layer; null when none.' },
    } } },
  },
};

export const rateResponse = {
  type: 'object', properties: {
    ok: { const: true }, endpoint: { const: 'rate' }, quota: freeQuota,
    report: { type: 'object', properties: { ip: { type: 'string' }, rating: { type: 'integer', enum: [-1, 0, 1] }, created_at: { type: 'string', format: 'date-time' } } },
  },
};

export const reportResponse = {
  type: 'object', properties: {
    ok: { const: true }, endpoint: { const: 'report' },
    query: { type: 'object', properties: { kind: { type: 'string' }, key: { type: 'string' }, namespace: { type: 'string' } } },
    quota: freeQuota,
    memory: { type: 'object', properties: { requested_visibility: { type: 'string' }, effective_visibility: { type: 'string' }, policy_notice: { type: 'string' } } },
    report: { type: 'object', properties: {
      id: { type: 'integer' }, event_type: { type: 'string' }, outcome_code: { type: 'string' }, title: { type: 'string' },
      summary: { type: 'string' }, severity: { type: 'string' }, status: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } },
      created_at: { type: 'string', format: 'date-time' },
      subject: { type: 'object', properties: { kind: { type: 'string' }, key: { type: 'string' }, share_policy: { type: 'string' } } },
      related_subjects: { type: 'array', items: { type: 'object', properties: { kind: { type: 'string' }, key: { type: 'string' }, role: { type: 'string' } } } },
    } },
  },
};

export function openApiDocument(baseUrl: string) {
  return {
    openapi: '3.1.0',
    info: { title: 'IP risk scoring API', version: '1.0.0', description: 'Score IPs for risk; write feedback and outcome reports back into workspace memory.' },
    servers: [{ url: baseUrl }],
    security: [{ apiKeyHeader: [] }, { bearer: [] }],
    paths: {
      '/risk_api/score/': { post: {
        summary: 'Score an IP (metered: counts against the daily API quota)', operationId: 'score',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/IpRequest' } } } },
        responses: {
          200: { description: 'Scored and counted. RateLimit-Limit/-Remaining/-Reset/-Policy headers describe the daily quota.', headers: rateLimitHeaderDocs,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ScoreResponse' } } } },
          ...errors('missing_api_key', 'invalid_api_key', 'conflicting_api_keys', 'invalid_json', 'invalid_request', 'unsupported_media_type',
            'payload_too_large', 'method_not_allowed', 'tier_not_eligible', 'quota_exceeded', 'rate_limited', 'quota_unavailable', 'database_unavailable', 'internal_error'),
        },
      } },
      '/risk_api/dimensions/': { post: {
        summary: 'Raw dimensional read: hierarchy and published summaries, no score wrapper (unmetered; needs a tier that includes score)', operationId: 'dimensions',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/IpRequest' } } } },
        responses: {
          200: { description: 'The hierarchy and summaries.', content: { 'application/json': { schema: { $ref: '#/components/schemas/DimensionsResponse' } } } },
          ...errors('missing_api_key', 'invalid_api_key', 'conflicting_api_keys', 'invalid_json', 'invalid_request', 'unsupported_media_type', 'payload_too_large', 'method_not_allowed', 'tier_not_eligible', 'internal_error'),
        },
      } },
      '/risk_api/rate/': { post: {
        summary: 'Record quick feedback about an IP (free)', operationId: 'rate', parameters: [idempotencyHeader],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/RateRequest' } } } },
        responses: {
          201: { description: 'Stored.', content: { 'application/json': { schema: { $ref: '#/components/schemas/RateResponse' } } } },
          200: { description: 'Idempotent replay of an earlier write (Idempotent-Replayed: true).', content: { 'application/json': { schema: { $ref: '#/components/schemas/RateResponse' } } } },
          ...writeErrors,
        },
      } },
      '/risk_api/report/': { post: {
        summary: 'Record a typed outcome event about a subject (free)', operationId: 'report', parameters: [idempotencyHeader],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ReportRequest' } } } },
        responses: {
          201: { description: 'Stored.', content: { 'application/json': { schema: { $ref: '#/components/schemas/ReportResponse' } } } },
          200: { description: 'Idempotent replay of an earlier write (Idempotent-Replayed: true).', content: { 'application/json': { schema: { $ref: '#/components/schemas/ReportResponse' } } } },
          ...writeErrors,
        },
      } },
    },
    components: {
      securitySchemes: {
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
      schemas: {
        Error: errorBody,
        IpRequest: bodySchema(ipQuerySchema),
        ScoreResponse: scoreResponse,
        RateRequest: bodySchema(rateInputSchema),
        ReportRequest: bodySchema(reportInputSchema),
        DimensionsResponse: dimensionsResponse,
        RateResponse: rateResponse,
        ReportResponse: reportResponse,
      },
    },
  };
}
