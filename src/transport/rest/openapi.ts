import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ErrorCode } from '../../errors.ts';
import { PACKAGE_ROOT } from '../../platform/package-root.ts';
import { bodySchema, errorBody, healthBody, readinessBody } from '../operations/schemas.ts';
import * as example from './openapi-examples.ts';
import { OPERATIONS, STREAMS } from '../operations/index.ts';
import type { Operation } from '../operations/operation.ts';
import type { StreamOperation } from '../operations/stream.ts';
import {
  errorResponses,
  examples,
  headers,
  parameters,
  rateLimitHeaders,
  ref,
  requestIdHeader,
} from './openapi-parts.ts';

/**
 * The OpenAPI 3.1 document of every HTTP route outside GraphQL, MCP and the control plane: the REST facade under
 * /risk_api/, health, readiness and metrics. Served at /risk_api/openapi.json with the server's BASE_URL, and
 * committed as openapi.json (scripts/print-openapi.ts; test/unit/openapi-file.test.ts fails when it is stale and
 * lints it with Redocly). test/integration/openapi-contract.test.ts checks live answers against it.
 */
const AUTH: ErrorCode[] = ['missing_api_key', 'invalid_api_key', 'conflicting_api_keys'];
const JSON_BODY: ErrorCode[] = ['invalid_json', 'invalid_request', 'unsupported_media_type', 'payload_too_large'];
const EVERY_ROUTE: ErrorCode[] = ['method_not_allowed', 'internal_error', 'service_unavailable'];
const AUTHENTICATED: ErrorCode[] = [...AUTH, 'database_unavailable', ...EVERY_ROUTE];

const json = (schema: string, value?: unknown) => ({
  'application/json': { schema: ref('schemas', schema), ...(value === undefined ? {} : { example: value }) },
});
const body = (schema: string, value: unknown) => ({ required: true, content: json(schema, value) });

/** GET takes a stream's request as query parameters, lists comma-separated (`?outcome_code=spam,fraud_watch`). */
function queryParameters(request: { properties?: Record<string, { description?: unknown }> }) {
  return Object.entries(request.properties ?? {}).map(([name, { description, ...schema }]) => ({
    name,
    in: 'query',
    required: false,
    description,
    schema,
    ...((schema as { type?: unknown }).type === 'array' ? { style: 'form', explode: false } : {}),
  }));
}

/** The path item of a streamed operation (operations/stream.ts): its POST, and its GET when it takes a query. */
function streamItem(s: StreamOperation) {
  const { doc } = s;
  const method = (m: 'get' | 'post') => ({
    tags: [doc.tag],
    operationId: doc[m]!.operationId,
    summary: doc[m]!.summary,
    description: doc.description,
    ...(m === 'get'
      ? { parameters: queryParameters(doc.request.jsonSchema) }
      : { requestBody: body(doc.request.schema, doc.request.example) }),
    responses: {
      200: {
        description: doc.response.description,
        headers: {
          ...requestIdHeader,
          'Content-Disposition': ref('headers', 'ContentDisposition'),
          'Cache-Control': ref('headers', 'CacheControl'),
          'X-Next-Cursor': ref('headers', 'NextCursor'),
          ...(m === 'get' ? { Link: ref('headers', 'Link') } : {}),
        },
        content: mediaTypes(doc.response.content),
      },
      ...errorResponses(m === 'get' ? ['invalid_request', ...AUTHENTICATED] : [...JSON_BODY, ...AUTHENTICATED]),
    },
  });
  return doc.get && s.query ? { get: method('get'), post: method('post') } : { post: method('post') };
}

/** The streams' paths, and their request and record schemas by their components' names. */
const streamPaths = () => Object.fromEntries(STREAMS.map((s) => [`${s.path}/`, streamItem(s)]));
const streamSchemas = () =>
  Object.fromEntries(
    STREAMS.flatMap((s) => [[s.doc.request.schema, s.doc.request.jsonSchema], ...Object.entries(s.doc.schemas)]),
  );

/** The path item of each operation of the catalogue, in the catalogue's order. */
function operationPaths() {
  return Object.fromEntries(OPERATIONS.map((op) => [`${op.path}/`, op.get ? getItem(op) : postItem(op)]));
}

function postItem(op: Operation) {
  const request = op.doc.request!;
  const headers = op.metering === 'metered' ? { ...requestIdHeader, ...rateLimitHeaders } : requestIdHeader;
  const answer = { description: op.doc.response.description, headers };
  const responses = op.idempotent
    ? {
        201: { ...answer, content: json(op.doc.response.schema, op.doc.response.example) },
        200: {
          description:
            'A replay: the Idempotency-Key and body match an earlier write, whose answer this is; nothing was written.',
          headers: { ...headers, 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') },
          content: json(op.doc.response.schema),
        },
      }
    : { [op.status ?? 200]: { ...answer, content: json(op.doc.response.schema, op.doc.response.example) } };
  return {
    post: {
      tags: [op.doc.tag],
      operationId: op.doc.operationId,
      summary: op.doc.summary,
      description: op.doc.description,
      ...(op.idempotent ? { parameters: [ref('parameters', 'IdempotencyKey')] } : {}),
      requestBody: request.content
        ? { required: true, content: mediaTypes(request.content) }
        : body(request.schema, request.example),
      responses: {
        ...responses,
        ...errorResponses(
          [...(request.content ? [] : JSON_BODY), ...op.doc.errors, ...AUTHENTICATED],
          op.doc.errorsWhen,
        ),
      },
    },
  };
}

/** A GET of the catalogue: its input as query parameters, each 200 media type with its example, and 304. */
function getItem(op: Operation) {
  const get = op.get!;
  const input = bodySchema(op.input);
  const parameters = Object.entries(input.properties).map(([name, { description, ...schema }]) => ({
    name,
    in: 'query',
    required: false,
    description,
    schema,
  }));
  const etag = {
    ETag: { required: true, schema: { type: 'string' }, description: 'Strong tag of the body.' },
    'Cache-Control': {
      required: true,
      schema: { const: 'private, no-cache' },
      description: 'No shared cache keeps it; a client keeps its copy and asks again with If-None-Match.',
    },
  };
  const counts = {
    'X-Blocklist-Matched': {
      required: true,
      schema: { type: 'string', pattern: '^[0-9]+$' },
      description: 'Entries that qualified, before limit.',
    },
    'X-Blocklist-Truncated': {
      required: true,
      schema: { type: 'string', enum: ['true', 'false'] },
      description: 'true when more qualified than limit.',
    },
  };
  return {
    get: {
      tags: [op.doc.tag],
      operationId: op.doc.operationId,
      summary: op.doc.summary,
      description: op.doc.description,
      parameters: [
        ...parameters,
        {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          description: 'The ETag of the copy you hold: answered 304 when it is still the list.',
          schema: { type: 'string' },
        },
      ],
      responses: {
        200: {
          description: op.doc.response.description,
          headers: { ...requestIdHeader, ...(op.metering === 'metered' ? rateLimitHeaders : {}), ...etag, ...counts },
          content: Object.fromEntries(
            Object.entries(get.content).map(([type, { example }]) => [
              type,
              type === 'application/json'
                ? { schema: ref('schemas', op.doc.response.schema), example }
                : { schema: { type: 'string' }, example },
            ]),
          ),
        },
        304: { description: get.notModified, headers: { ...requestIdHeader, ...etag } },
        ...errorResponses(['invalid_request', ...op.doc.errors, ...AUTHENTICATED]),
      },
    },
  };
}

/** A request's media types, a schema given by its component's name as a reference. */
function mediaTypes(content: Record<string, { schema: string | object; example: unknown }>) {
  return Object.fromEntries(
    Object.entries(content).map(([type, { schema, example }]) => [
      type,
      { schema: typeof schema === 'string' ? ref('schemas', schema) : schema, example },
    ]),
  );
}

/**
 * The request (or response) schemas of the catalogue's operations, by their components' names; a shared one once.
 * A body whose every field is optional says so with an empty `required` list (zod leaves it out).
 */
function operationSchemas(which: 'request' | 'response') {
  return Object.fromEntries(
    OPERATIONS.flatMap((op) => {
      if (which === 'response') return [[op.doc.response.schema, op.output]];
      if (!op.doc.request) return [];
      if (op.doc.request.jsonSchema) return [[op.doc.request.schema, op.doc.request.jsonSchema]];
      const request = bodySchema(op.input);
      return [[op.doc.request.schema, 'required' in request ? request : { required: [], ...request }]];
    }),
  );
}

function paths() {
  const probe = (operationId: string, summary: string, description: string, responses: Record<string, unknown>) => ({
    get: { tags: ['Operations'], operationId, summary, description, security: [], responses },
  });
  return {
    ...operationPaths(),
    ...streamPaths(),
    '/risk_api/openapi.json': {
      get: {
        tags: ['Contract'],
        operationId: 'openapi',
        summary: 'This document',
        security: [],
        description: "The OpenAPI 3.1 document, with this server's BASE_URL as its server.",
        responses: {
          200: {
            description: 'The document.',
            headers: requestIdHeader,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['openapi', 'info', 'paths'],
                  properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
                  additionalProperties: true,
                },
              },
            },
          },
          ...errorResponses(['method_not_allowed', 'service_unavailable']),
        },
      },
    },
    '/healthz': probe('healthz', 'Liveness', 'The process answers. Any method; never authenticated.', {
      200: { description: 'Alive.', headers: requestIdHeader, content: json('Health', { ok: true }) },
      ...errorResponses(['service_unavailable']),
    }),
    '/readyz': probe(
      'readyz',
      'Readiness',
      'Every dependency (database, counter store) answered a ping and the server is not shutting down. Any method; never authenticated.',
      {
        200: { description: 'Ready.', headers: requestIdHeader, content: json('Readiness', example.readinessExample) },
        503: {
          description:
            'Not ready: a check failed (named in checks), or the server is shutting down (then the service_unavailable error body).',
          headers: requestIdHeader,
          content: {
            'application/json': {
              schema: { anyOf: [ref('schemas', 'Readiness'), ref('schemas', 'Error')] },
              example: example.notReadyExample,
            },
          },
        },
      },
    ),
    '/metrics': {
      get: {
        tags: ['Operations'],
        operationId: 'metrics',
        summary: 'Prometheus metrics',
        description:
          'Prometheus text exposition: request durations by route and status, score calls and refusals, publication, feeds, ' +
          'outbox, counter-store and database latency, event-loop delay, process metrics. Open to loopback clients by default; when ' +
          'METRICS_TOKEN is set, scrapes must send it as `Authorization: Bearer <METRICS_TOKEN>` (docs/operations.md).',
        security: [{}, { metricsToken: [] }],
        responses: {
          200: {
            description: 'The metrics.',
            headers: { ...requestIdHeader, 'Cache-Control': ref('headers', 'CacheControl') },
            content: {
              'text/plain': {
                schema: { type: 'string' },
                example:
                  '# HELP process_cpu_user_seconds_total Total user CPU time spent in seconds.\n# TYPE process_cpu_user_seconds_total counter\nprocess_cpu_user_seconds_total 12.5\n',
              },
            },
          },
          ...metricsErrors(),
        },
      },
    },
  };
}

/** The refusals of /metrics; its 401 names the scheme it expects. */
function metricsErrors() {
  const responses = errorResponses([
    'metrics_token_invalid',
    'metrics_loopback_only',
    'method_not_allowed',
    'service_unavailable',
  ]) as Record<string, { headers: object }>;
  responses['401']!.headers = { ...responses['401']!.headers, 'WWW-Authenticate': ref('headers', 'WwwAuthenticate') };
  return responses;
}

/** package.json's licence: its SPDX id, or "UNLICENSED" (npm's word for no licence granted), which has none. */
function license(): { name: string; identifier?: string } {
  const { license: spdx = 'UNLICENSED' } = JSON.parse(
    readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8'),
  ) as { license?: string };
  return spdx === 'UNLICENSED' ? { name: spdx } : { name: spdx, identifier: spdx };
}

/** The served document names `baseUrl` as its server; the committed one (no argument) a BASE_URL variable. */
export function openApiDocument(baseUrl?: string) {
  const paths_ = paths();
  for (const item of Object.values(paths_))
    (item as Record<string, unknown>).parameters = [ref('parameters', 'RequestId')];
  return {
    openapi: '3.1.0',
    info: {
      title: 'IP risk scoring API',
      version: '1.0.0',
      license: license(),
      description:
        "Score IPs for risk; write feedback and outcome reports back into the workspace's memory; export them. " +
        'Authenticate with an API key in `X-API-Key` or `Authorization: Bearer`. Bodies are JSON; unknown fields are refused. ' +
        'Every error is `{ ok: false, error, message }` (+ `details` for invalid fields); every response carries X-Request-Id. ' +
        'Paths work with or without their trailing slash; an unknown path under /risk_api/ answers 404 not_found, and a request ' +
        'that does not arrive whole within REQUEST_TIMEOUT_MS is answered 408 without a body. Reference: docs/api.md.',
    },
    servers: baseUrl
      ? [{ url: baseUrl }]
      : [
          {
            url: '{baseUrl}',
            description: "The server's BASE_URL.",
            variables: { baseUrl: { default: 'http://127.0.0.1:8080' } },
          },
        ],
    security: [{ apiKey: [] }, { bearerKey: [] }],
    tags: [
      { name: 'Scoring', description: 'The metered score and the raw dimensional read (tiers that include score).' },
      {
        name: 'Memory',
        description: "Free writebacks into the workspace's memory, safe to retry with an Idempotency-Key.",
      },
      {
        name: 'Overrides',
        description: "The workspace's allow, deny and adjust rules over its own scores, with their audit trail (free).",
      },
      {
        name: 'Watches',
        description:
          "The workspace's watches on IPs, blocks, ASes and report subjects, whose events go to its webhook endpoints (free).",
      },
      { name: 'Export', description: "The workspace's reports as NDJSON or CSV." },
      {
        name: 'Blocklist',
        description: 'The addresses and blocks at or above a level, under your rules, in formats firewalls import.',
      },
      { name: 'Operations', description: 'Liveness, readiness and metrics for orchestrators and monitoring.' },
      { name: 'Contract', description: 'This document.' },
    ],
    paths: paths_,
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'An API key of the workspace (`rk_…`).',
        },
        bearerKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'The same API key as `Authorization: Bearer <key>`.',
        },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, when the server sets one.' },
      },
      headers,
      parameters,
      examples,
      schemas: {
        Error: errorBody,
        ...operationSchemas('request'),
        ...operationSchemas('response'),
        ...streamSchemas(),
        Health: healthBody,
        Readiness: readinessBody,
      },
    },
  };
}
