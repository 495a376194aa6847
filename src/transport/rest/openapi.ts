import { readFileSync } from 'node:fs';
import { SCORE_BATCHES } from '../http/score-batch-gate.ts';
import path from 'node:path';
import type { ErrorCode } from '../../errors.ts';
import { PACKAGE_ROOT } from '../../platform/package-root.ts';
import { ipQuerySchema, rateInputSchema, reportInputSchema } from '../../domain/memory/schemas.ts';
import { MAX_BATCH_IPS, scoreBatchInputSchema } from '../../domain/lookups/score-batch.ts';
import { DEFAULT_BLOCK_PAGE, MAX_BLOCK_PAGE, checkBlockInputSchema } from '../../domain/lookups/block-check.ts';
import { BLOCK_BOUNDS } from '../../domain/network/block.ts';
import { reportFilterSchema } from '../../domain/analyst/report-filter.ts';
import { EXPORT_MAX_ROWS } from './export.ts';
import { BULK_MAX_BYTES, BULK_MAX_LINES, CSV_COLUMNS } from './bulk/body.ts';
import { BULK_CHUNK_SIZE } from '../../domain/memory/report-bulk.ts';
import {
  bodySchema, bulkLineSchema, bulkReportResponse, checkBlockResponse, dimensionsResponse, errorBody, exportRecord, healthBody, rateResponse, readinessBody,
  reportResponse, scoreBatchResponse, scoreResponse,
} from './openapi-schemas.ts';
import * as example from './openapi-examples.ts';
import { overrideAuditRecord, overrideListResponse, overrideRuleResponse } from './openapi-overrides.ts';
import * as watchApi from './openapi-watches.ts';
import { WATCH_LIMITS, createWatchSchema, deleteWatchSchema, listWatchesSchema, updateWatchSchema } from '../../domain/watches/schemas.ts';
import { OVERRIDE_LIMITS, createOverrideSchema, expireOverrideSchema, listOverridesSchema, overrideAuditSchema, updateOverrideSchema } from '../../domain/overrides/schemas.ts';
import { errorResponses, examples, headers, parameters, rateLimitHeaders, ref, requestIdHeader } from './openapi-parts.ts';

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

const json = (schema: string, value?: unknown) => ({ 'application/json': { schema: ref('schemas', schema), ...(value === undefined ? {} : { example: value }) } });
const body = (schema: string, value: unknown) => ({ required: true, content: json(schema, value) });

function exportRequest() {
  const filter = bodySchema(reportFilterSchema);
  const instant = (description: unknown) => ({ type: 'string', format: 'date-time', description });
  return {
    ...filter,
    required: [],
    properties: {
      ...filter.properties,
      from: instant(filter.properties.from?.description), to: instant(filter.properties.to?.description),
      format: { type: 'string', enum: ['ndjson', 'csv'], default: 'ndjson', description: 'ndjson: one JSON object per line; csv: RFC 4180 with a header line.' },
      limit: { type: 'integer', minimum: 1, maximum: EXPORT_MAX_ROWS, default: EXPORT_MAX_ROWS, description: 'Most reports in this answer.' },
      cursor: { type: 'string', description: 'X-Next-Cursor of the previous answer: continue after its last report.' },
    },
  };
}

/** GET takes the export request as query parameters, lists comma-separated (`?outcome_code=spam,fraud_watch`). */
function exportQuery(request: ReturnType<typeof exportRequest>) {
  return Object.entries(request.properties).map(([name, { description, ...schema }]) => ({
    name, in: 'query', required: false, description, schema,
    ...(schema.type === 'array' ? { style: 'form', explode: false } : {}),
  }));
}

function exportOperation(method: 'get' | 'post', request: ReturnType<typeof exportRequest>) {
  return {
    tags: ['Export'], operationId: method === 'get' ? 'exportReports' : 'exportReportsPost',
    summary: method === 'get' ? 'Export the workspace\'s reports (filters in the query)' : 'Export the workspace\'s reports (filters in a JSON body)',
    description: 'The workspace\'s reports with the GraphQL `reports(filter)` filters, newest first, streamed as NDJSON (one record per '
      + `line, each as the ExportRecord schema) or CSV (the same columns flattened; tags joined by ";", related_subjects as JSON). At most ${EXPORT_MAX_ROWS} `
      + 'reports per answer; when more match, X-Next-Cursor (and for GET a Link rel="next") continues after the last one sent. Unmetered.',
    ...(method === 'get' ? { parameters: exportQuery(request) } : { requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'ExportRequest'), example: { outcome_code: ['fraud_watch', 'spam'], from: '2026-11-01T00:00:00Z', format: 'csv' } } } } }),
    responses: {
      200: {
        description: 'The reports. application/x-ndjson: one ExportRecord per line; text/csv: a header line, then one line per report.',
        headers: {
          ...requestIdHeader, 'Content-Disposition': ref('headers', 'ContentDisposition'), 'Cache-Control': ref('headers', 'CacheControl'),
          'X-Next-Cursor': ref('headers', 'NextCursor'), ...(method === 'get' ? { Link: ref('headers', 'Link') } : {}),
        },
        content: {
          'application/x-ndjson': { schema: ref('schemas', 'ExportRecord'), example: example.exportRecordExample },
          'text/csv': { schema: { type: 'string' }, example: example.exportCsvExample },
        },
      },
      ...errorResponses(method === 'get' ? ['invalid_request', ...AUTHENTICATED] : [...JSON_BODY, ...AUTHENTICATED]),
    },
  };
}

const idempotentWrite = (operationId: 'rate' | 'report', summary: string, description: string) => ({
  post: {
    tags: ['Memory'], operationId, summary, description, parameters: [ref('parameters', 'IdempotencyKey')],
    requestBody: body(operationId === 'rate' ? 'RateRequest' : 'ReportRequest', operationId === 'rate' ? example.rateRequestExample : example.reportRequestExample),
    responses: {
      201: { description: 'Stored.', headers: requestIdHeader, content: json(operationId === 'rate' ? 'RateResponse' : 'ReportResponse', operationId === 'rate' ? example.rateExample : example.reportExample) },
      200: {
        description: 'A replay: the Idempotency-Key and body match an earlier write, whose answer this is; nothing was written.',
        headers: { ...requestIdHeader, 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') },
        content: json(operationId === 'rate' ? 'RateResponse' : 'ReportResponse'),
      },
      ...errorResponses([...JSON_BODY, 'idempotency_key_reused', ...AUTHENTICATED]),
    },
  },
});

/** The POST /risk_api/watches/ family: free, bounded (docs/api.md, watches; docs/watches.md for the events). */
function watchPaths() {
  const op = (operationId: string, summary: string, description: string, request: string, requestExample: unknown, ok: Record<string, unknown>, codes: ErrorCode[], when: Partial<Record<ErrorCode, string>> = {}) => ({ post: {
    tags: ['Watches'], operationId, summary, description, requestBody: body(request, requestExample),
    responses: { ...ok, ...errorResponses([...JSON_BODY, ...codes, ...AUTHENTICATED], when) },
  } });
  const notFound = { not_found: 'no watch with this id in the workspace' };
  return {
    '/risk_api/watches/': op('createWatch', 'Watch an IP, block, AS or report subject (free)',
      'A watch of the workspace on an IP, a CIDR block or an AS (target), or on any other report subject (subject: kind and key). '
      + 'Its events go to the workspace\'s webhook endpoints that want them: watch.score_crossed and watch.level_changed when a new publication '
      + 'moves the target\'s score across score_threshold or changes its level, watch.spike_started when its community signal starts spiking, '
      + 'watch.reported when another workspace\'s community-visible report names it (docs/watches.md). The first publication seen only records state. '
      + `At most ${WATCH_LIMITS.perWorkspace} watches per workspace, one per target. The author is the calling key. Never counted.`,
      'CreateWatchRequest', watchApi.createWatchRequestExample,
      { 201: { description: 'Created.', headers: requestIdHeader, content: json('WatchResponse', watchApi.watchExampleResponse) } },
      ['watch_exists', 'watch_limit_reached'],
      { watch_exists: 'the workspace already watches this target', watch_limit_reached: `the workspace has ${WATCH_LIMITS.perWorkspace} watches` }),
    '/risk_api/watches/list/': op('listWatches', 'List watches (free)',
      `The workspace's watches, oldest first, with the state detection last recorded; limit 1-${WATCH_LIMITS.listPage} (default ${WATCH_LIMITS.defaultListPage}), next_cursor as cursor for the next page. Never counted.`,
      'ListWatchesRequest', { limit: 50 },
      { 200: { description: 'One page of watches.', headers: requestIdHeader, content: json('WatchListResponse', watchApi.watchListExample) } }, []),
    '/risk_api/watches/update/': op('updateWatch', 'Change a watch\'s threshold or note (free)',
      'score_threshold (1-100; null removes it) or note; at least one. The target never changes: that is another watch. Never counted.',
      'UpdateWatchRequest', watchApi.updateWatchRequestExample,
      { 200: { description: 'Changed.', headers: requestIdHeader, content: json('WatchResponse', watchApi.updatedWatchExample) } },
      ['not_found'], notFound),
    '/risk_api/watches/delete/': op('deleteWatch', 'Delete a watch (free)',
      'Deletes the watch and answers it as it was; events already written are still delivered. A watch of another workspace is not found. Never counted.',
      'DeleteWatchRequest', { id: 7 },
      { 200: { description: 'Deleted.', headers: requestIdHeader, content: json('WatchResponse', watchApi.deletedWatchExample) } },
      ['not_found'], notFound),
  };
}

function bulkOperation() {
  return { post: {
    tags: ['Memory'], operationId: 'reportBulk', summary: 'Record many outcome events at once (free)',
    description: `Up to ${BULK_MAX_LINES} reports and ${BULK_MAX_BYTES} bytes (5 MB) per request, as NDJSON (one \`report\` body per line, `
      + 'plus an optional `idempotency_key`) or CSV (a header line naming columns among '
      + `${CSV_COLUMNS.join(', ')}; an empty cell is an absent field, tags are separated by ";", related_subjects is a JSON array as the export writes it). `
      + 'Each line is judged alone by `report`\'s rules and answered in `results` (created, replayed, or its error with the same details `report` gives); '
      + `the valid lines are stored in chunks of ${BULK_CHUNK_SIZE.postgres} per transaction on PostgreSQL, ${BULK_CHUNK_SIZE.embedded} on the embedded database (chunk_size). Blank lines are skipped. A body over either bound is refused whole (413) before `
      + 'any line is read. Not the Idempotency-Key header: each line carries its own key. Never counted.',
    requestBody: {
      required: true,
      content: {
        // The schema and example are one line's (as for the export's NDJSON); lines are separated by LF or CRLF.
        'application/x-ndjson': { schema: ref('schemas', 'BulkReportLine'), example: example.bulkNdjsonExample },
        'text/csv': { schema: { type: 'string', description: 'RFC 4180 CSV with a header line.' }, example: example.bulkCsvExample },
      },
    },
    responses: {
      200: { description: 'Every line answered (stored, replayed or refused alone).', headers: requestIdHeader, content: json('BulkReportResponse', example.bulkExample) },
      ...errorResponses(['invalid_request', 'unsupported_media_type', 'payload_too_large', ...AUTHENTICATED], {
        invalid_request: 'the body holds no report, the CSV header names an unknown or repeated column, or an Idempotency-Key header was sent',
        unsupported_media_type: 'Content-Type is neither application/x-ndjson nor text/csv',
        payload_too_large: `the body is over ${BULK_MAX_BYTES} bytes or holds more than ${BULK_MAX_LINES} reports (the message names which)`,
      }),
    },
  } };
}

/** A body whose every field is optional: its `required` list is empty rather than absent (zod leaves it out). */
const optionalOnly = <S extends object>(schema: S) => ({ required: [], ...schema });

/** The POST /risk_api/overrides/ family: free, bounded, every change in the audit trail (docs/api.md, overrides). */
function overridePaths() {
  const op = (operationId: string, summary: string, description: string, request: string, requestExample: unknown, ok: Record<string, unknown>, codes: ErrorCode[], when: Partial<Record<ErrorCode, string>> = {}) => ({ post: {
    tags: ['Overrides'], operationId, summary, description, requestBody: body(request, requestExample),
    responses: { ...ok, ...errorResponses([...JSON_BODY, ...codes, ...AUTHENTICATED], when) },
  } });
  return {
    '/risk_api/overrides/': op('createOverride', 'Create an override rule (free)',
      'A rule of the workspace on an IP, a CIDR block, an AS or a country: allow (its scores answer level minimal), deny (critical) '
      + 'or adjust (points added, clamped to 0-100), with a reason shown in every score it changes, an optional note and an optional '
      + 'expiry. The most specific rule in force applies (IP, then CIDR by longest prefix, then AS, then country). It applies to the '
      + 'workspace\'s score answers at once in this process and within a second in every other. The author is the calling key. '
      + `At most ${OVERRIDE_LIMITS.activeRules} rules in force per workspace, one per target. Recorded in the audit trail. Never counted.`,
      'CreateOverrideRequest', example.createOverrideRequestExample,
      { 201: { description: 'Created.', headers: requestIdHeader, content: json('OverrideRuleResponse', example.overrideRuleExample) } },
      ['override_exists', 'override_limit_reached'],
      { override_exists: 'the target already has a rule in force (expire it first)', override_limit_reached: `the workspace has ${OVERRIDE_LIMITS.activeRules} rules in force` }),
    '/risk_api/overrides/list/': op('listOverrides', 'List override rules (free)',
      `The workspace's rules, oldest first: active (default), inactive or all; limit 1-${OVERRIDE_LIMITS.listPage} (default ${OVERRIDE_LIMITS.defaultListPage}), next_cursor as cursor for the next page. Never counted.`,
      'ListOverridesRequest', { state: 'active', limit: 50 },
      { 200: { description: 'One page of rules.', headers: requestIdHeader, content: json('OverrideListResponse', example.overrideListExample) } }, []),
    '/risk_api/overrides/update/': op('updateOverride', 'Change a rule\'s reason, note or expiry (free)',
      'Changes what a rule in force says (reason, note) and until when (expires_at; null removes the expiry), never what it does: '
      + 'another target, action or points is a new rule. At least one field. Recorded in the audit trail with the rule before and after. Never counted.',
      'UpdateOverrideRequest', example.updateOverrideRequestExample,
      { 200: { description: 'Changed.', headers: requestIdHeader, content: json('OverrideRuleResponse', example.updatedRuleExample) } },
      ['not_found', 'override_not_active'],
      { not_found: 'no rule with this id in the workspace', override_not_active: 'the rule was expired or is past its expiry' }),
    '/risk_api/overrides/expire/': op('expireOverride', 'Expire an override rule (free)',
      'Ends a rule in force now; it stays listed (inactive) and in the audit trail. A rule of another workspace is not found. Never counted.',
      'ExpireOverrideRequest', { id: 12 },
      { 200: { description: 'Expired.', headers: requestIdHeader, content: json('OverrideRuleResponse', example.expiredRuleExample) } },
      ['not_found', 'override_not_active'],
      { not_found: 'no rule with this id in the workspace', override_not_active: 'the rule was already expired or is past its expiry' }),
    '/risk_api/overrides/audit/': { post: {
      tags: ['Overrides'], operationId: 'exportOverrideAudit', summary: 'Export the override audit trail as NDJSON (free)',
      description: 'Every change of the workspace\'s rules (create, update, expire), oldest first, one OverrideAuditRecord per line: who, when, '
        + `from which surface, the rule before and after. At most limit entries (1-${OVERRIDE_LIMITS.exportRows}, default ${OVERRIDE_LIMITS.exportRows}); `
        + 'X-Next-Cursor, when present, is the cursor of the next request. The trail is append-only. Never counted.',
      requestBody: body('OverrideAuditRequest', { limit: 1000 }),
      responses: {
        200: {
          description: 'The entries, one per line.',
          headers: { ...requestIdHeader, 'Content-Disposition': ref('headers', 'ContentDisposition'), 'Cache-Control': ref('headers', 'CacheControl'), 'X-Next-Cursor': ref('headers', 'NextCursor') },
          content: { 'application/x-ndjson': { schema: ref('schemas', 'OverrideAuditRecord'), example: example.overrideAuditExample } },
        },
        ...errorResponses([...JSON_BODY, ...AUTHENTICATED]),
      },
    } },
  };
}

function paths() {
  const request = exportRequest();
  const probe = (operationId: string, summary: string, description: string, responses: Record<string, unknown>) => ({
    get: { tags: ['Operations'], operationId, summary, description, security: [], responses },
  });
  return {
    '/risk_api/score/': { post: {
      tags: ['Scoring'], operationId: 'score', summary: 'Score an IP (metered)',
      description: 'The overall risk score of an IP, its eight dimensions with their explanation, the community signal and the '
        + 'workspace\'s own memory of it. Each successful call counts once against the daily score quota (RateLimit-* headers); '
        + 'a refused call counts nothing. Needs a tier that includes score.',
      requestBody: body('IpRequest', example.ipRequestExample),
      responses: {
        200: { description: 'Scored and counted.', headers: { ...requestIdHeader, ...rateLimitHeaders }, content: json('ScoreResponse', example.scoreExample) },
        ...errorResponses([...JSON_BODY, 'tier_not_eligible', 'quota_exceeded', 'rate_limited', 'quota_unavailable', ...AUTHENTICATED]),
      },
    } },
    '/risk_api/score/batch/': { post: {
      tags: ['Scoring'], operationId: 'scoreBatch', summary: `Score 1 to ${MAX_BATCH_IPS} IPs in one call (metered)`,
      description: 'One answer per requested IP, in request order: the same objects as the single score (query, score, community_signal, '
        + 'links, workspace_memory, publication), or `{ ip, ok: false, error: "invalid_ip", message }` for an item that is not an IP, '
        + 'which is not counted. A repeated IP (after canonicalisation) is scored and counted once. The batch costs one call per '
        + 'distinct valid IP on the daily score quota and on the key\'s burst limit, reserved all or nothing before any IP is scored: '
        + 'when fewer are left today it is refused with 429 quota_exceeded, when they do not fit this second\'s burst window with 429 '
        + 'rate_limited, and either refusal counts nothing. A batch of more distinct valid IPs than the tier\'s burst_per_second can '
        + `never pass, and is refused with 400 invalid_request. Batches of ${SCORE_BATCHES.minItems} items or more take turns on each server, one at a `
        + `time (single score calls and smaller batches never wait for them); a workspace may have ${SCORE_BATCHES.perCaller} running or waiting, and `
        + 'one more is refused at once with 429 rate_limited and `in_flight` (nothing counted). Needs a tier that includes score.',
      requestBody: body('ScoreBatchRequest', example.scoreBatchRequestExample),
      responses: {
        200: { description: 'Scored and counted (the quota after the batch).', headers: { ...requestIdHeader, ...rateLimitHeaders }, content: json('ScoreBatchResponse', example.scoreBatchExample) },
        ...errorResponses([...JSON_BODY, 'tier_not_eligible', 'quota_exceeded', 'rate_limited', 'quota_unavailable', ...AUTHENTICATED]),
      },
    } },
    '/risk_api/check_block/': { post: {
      tags: ['Scoring'], operationId: 'checkBlock', summary: 'Check a CIDR block (metered: one score call)',
      description: `A CIDR block of IPv4 /${BLOCK_BOUNDS[4]} to /32 or IPv6 /${BLOCK_BOUNDS[6]} to /128 (a larger one is refused with 400 `
        + 'invalid_request naming the bound; host bits set are cleared, and query.cidr is the block read): the subnet, AS and organisation '
        + 'holding the whole block with their published summaries (null, with the reason, when the block spans more than one subnet), '
        + 'the reports the caller may see naming its IPs (its workspace\'s, and every community-visible one) counted by outcome, the '
        + 'workspace\'s ratings, first and last seen, the community signal of its subnet, and a page of its reported and rated IPs in '
        + `address order, each with its score from the current publication (limit 1-${MAX_BLOCK_PAGE}, default ${DEFAULT_BLOCK_PAGE}; `
        + 'send next_cursor as cursor for the next page). Each page counts as ONE call on the daily score quota and the key\'s burst '
        + 'limit, taken before the block is read; a refused call counts nothing. Needs a tier that includes score.',
      requestBody: body('CheckBlockRequest', example.checkBlockRequestExample),
      responses: {
        200: { description: 'Checked and counted.', headers: { ...requestIdHeader, ...rateLimitHeaders }, content: json('CheckBlockResponse', example.checkBlockExample) },
        ...errorResponses([...JSON_BODY, 'tier_not_eligible', 'quota_exceeded', 'rate_limited', 'quota_unavailable', ...AUTHENTICATED]),
      },
    } },
    '/risk_api/dimensions/': { post: {
      tags: ['Scoring'], operationId: 'dimensions', summary: 'Raw dimensional read of an IP (unmetered)',
      description: 'The IP\'s report hierarchy and, per dimension, the entity with its published summary and the workspace\'s own layer, '
        + 'without the score wrapper. Never counted, but needs a tier that includes score (its per-dimension scores rebuild the score).',
      requestBody: body('IpRequest', example.ipRequestExample),
      responses: {
        200: { description: 'The hierarchy and its summaries.', headers: requestIdHeader, content: json('DimensionsResponse', example.dimensionsExample) },
        ...errorResponses([...JSON_BODY, 'tier_not_eligible', ...AUTHENTICATED]),
      },
    } },
    '/risk_api/rate/': idempotentWrite('rate', 'Record quick feedback about an IP (free)', 'A good (1), neutral (0) or bad (-1) rating of an IP, with an optional note. Never counted.'),
    '/risk_api/report/': idempotentWrite('report', 'Record a typed outcome event about a subject (free)',
      'An outcome (fraud, chargeback, spam, legitimate, ...) about a subject of any kind, with related subjects and their roles, '
      + 'under a share policy and a visibility. Keys are normalised by kind. Never counted.'),
    '/risk_api/report/bulk/': bulkOperation(),
    ...overridePaths(),
    ...watchPaths(),
    '/risk_api/export/': { get: exportOperation('get', request), post: exportOperation('post', request) },
    '/risk_api/openapi.json': { get: {
      tags: ['Contract'], operationId: 'openapi', summary: 'This document', security: [],
      description: 'The OpenAPI 3.1 document, with this server\'s BASE_URL as its server.',
      responses: {
        200: { description: 'The document.', headers: requestIdHeader, content: { 'application/json': { schema: { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } }, additionalProperties: true } } } },
        ...errorResponses(['method_not_allowed', 'service_unavailable']),
      },
    } },
    '/healthz': probe('healthz', 'Liveness', 'The process answers. Any method; never authenticated.', {
      200: { description: 'Alive.', headers: requestIdHeader, content: json('Health', { ok: true }) },
      ...errorResponses(['service_unavailable']),
    }),
    '/readyz': probe('readyz', 'Readiness', 'Every dependency (database, counter store) answered a ping and the server is not shutting down. Any method; never authenticated.', {
      200: { description: 'Ready.', headers: requestIdHeader, content: json('Readiness', example.readinessExample) },
      503: {
        description: 'Not ready: a check failed (named in checks), or the server is shutting down (then the service_unavailable error body).',
        headers: requestIdHeader,
        content: { 'application/json': { schema: { anyOf: [ref('schemas', 'Readiness'), ref('schemas', 'Error')] }, example: example.notReadyExample } },
      },
    }),
    '/metrics': { get: {
      tags: ['Operations'], operationId: 'metrics', summary: 'Prometheus metrics',
      description: 'Prometheus text exposition: request durations by route and status, score calls and refusals, publication, feeds, '
        + 'outbox, counter-store and database latency, event-loop delay, process metrics. Open to loopback clients by default; when '
        + 'METRICS_TOKEN is set, scrapes must send it as `Authorization: Bearer <METRICS_TOKEN>` (docs/operations.md).',
      security: [{}, { metricsToken: [] }],
      responses: {
        200: { description: 'The metrics.', headers: { ...requestIdHeader, 'Cache-Control': ref('headers', 'CacheControl') }, content: { 'text/plain': { schema: { type: 'string' }, example: '# HELP process_cpu_user_seconds_total Total user CPU time spent in seconds.\n# TYPE process_cpu_user_seconds_total counter\nprocess_cpu_user_seconds_total 12.5\n' } } },
        ...metricsErrors(),
      },
    } },
  };
}

/** The refusals of /metrics; its 401 names the scheme it expects. */
function metricsErrors() {
  const responses = errorResponses(['metrics_token_invalid', 'metrics_loopback_only', 'method_not_allowed', 'service_unavailable']) as Record<string, { headers: object }>;
  responses['401']!.headers = { ...responses['401']!.headers, 'WWW-Authenticate': ref('headers', 'WwwAuthenticate') };
  return responses;
}

/** package.json's licence: its SPDX id, or "UNLICENSED" (npm's word for no licence granted), which has none. */
function license(): { name: string; identifier?: string } {
  const { license: spdx = 'UNLICENSED' } = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { license?: string };
  return spdx === 'UNLICENSED' ? { name: spdx } : { name: spdx, identifier: spdx };
}

/** The served document names `baseUrl` as its server; the committed one (no argument) a BASE_URL variable. */
export function openApiDocument(baseUrl?: string) {
  const paths_ = paths();
  for (const item of Object.values(paths_)) (item as Record<string, unknown>).parameters = [ref('parameters', 'RequestId')];
  return {
    openapi: '3.1.0',
    info: {
      title: 'IP risk scoring API', version: '1.0.0', license: license(),
      description: 'Score IPs for risk; write feedback and outcome reports back into the workspace\'s memory; export them. '
        + 'Authenticate with an API key in `X-API-Key` or `Authorization: Bearer`. Bodies are JSON; unknown fields are refused. '
        + 'Every error is `{ ok: false, error, message }` (+ `details` for invalid fields); every response carries X-Request-Id. '
        + 'Paths work with or without their trailing slash; an unknown path under /risk_api/ answers 404 not_found, and a request '
        + 'that does not arrive whole within REQUEST_TIMEOUT_MS is answered 408 without a body. Reference: docs/api.md.',
    },
    servers: baseUrl
      ? [{ url: baseUrl }]
      : [{ url: '{baseUrl}', description: 'The server\'s BASE_URL.', variables: { baseUrl: { default: 'http://127.0.0.1:8080' } } }],
    security: [{ apiKey: [] }, { bearerKey: [] }],
    tags: [
      { name: 'Scoring', description: 'The metered score and the raw dimensional read (tiers that include score).' },
      { name: 'Memory', description: 'Free writebacks into the workspace\'s memory, safe to retry with an Idempotency-Key.' },
      { name: 'Overrides', description: 'The workspace\'s allow, deny and adjust rules over its own scores, with their audit trail (free).' },
      { name: 'Watches', description: 'The workspace\'s watches on IPs, blocks, ASes and report subjects, whose events go to its webhook endpoints (free).' },
      { name: 'Export', description: 'The workspace\'s reports as NDJSON or CSV.' },
      { name: 'Operations', description: 'Liveness, readiness and metrics for orchestrators and monitoring.' },
      { name: 'Contract', description: 'This document.' },
    ],
    paths: paths_,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key of the workspace (`rk_…`).' },
        bearerKey: { type: 'http', scheme: 'bearer', description: 'The same API key as `Authorization: Bearer <key>`.' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, when the server sets one.' },
      },
      headers, parameters, examples,
      schemas: {
        Error: errorBody,
        IpRequest: bodySchema(ipQuerySchema), ScoreBatchRequest: bodySchema(scoreBatchInputSchema), CheckBlockRequest: bodySchema(checkBlockInputSchema),
        RateRequest: bodySchema(rateInputSchema), ReportRequest: bodySchema(reportInputSchema), BulkReportLine: bulkLineSchema(), ExportRequest: exportRequest(),
        ScoreResponse: scoreResponse, ScoreBatchResponse: scoreBatchResponse, CheckBlockResponse: checkBlockResponse, DimensionsResponse: dimensionsResponse,
        RateResponse: rateResponse, ReportResponse: reportResponse, BulkReportResponse: bulkReportResponse,
        CreateOverrideRequest: bodySchema(createOverrideSchema), ListOverridesRequest: optionalOnly(bodySchema(listOverridesSchema)),
        ExpireOverrideRequest: bodySchema(expireOverrideSchema), UpdateOverrideRequest: bodySchema(updateOverrideSchema), OverrideAuditRequest: optionalOnly(bodySchema(overrideAuditSchema)),
        OverrideRuleResponse: overrideRuleResponse, OverrideListResponse: overrideListResponse, OverrideAuditRecord: overrideAuditRecord,
        CreateWatchRequest: optionalOnly(bodySchema(createWatchSchema)), ListWatchesRequest: optionalOnly(bodySchema(listWatchesSchema)),
        UpdateWatchRequest: bodySchema(updateWatchSchema), DeleteWatchRequest: bodySchema(deleteWatchSchema),
        WatchResponse: watchApi.watchResponse, WatchListResponse: watchApi.watchListResponse,
        ExportRecord: exportRecord, Health: healthBody, Readiness: readinessBody,
      },
    },
  };
}
