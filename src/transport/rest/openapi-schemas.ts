import { OVERRIDE_ACTIONS, OVERRIDE_LIMITS } from '../../domain/overrides/schemas.ts';
import { TARGET_KINDS } from '../../domain/overrides/target.ts';
import { INVALID_IP, MAX_BATCH_IPS } from '../../domain/lookups/score-batch.ts';
import { MAX_BLOCK_PAGE } from '../../domain/lookups/block-check.ts';
import { z } from 'zod';
import { ERRORS } from '../../errors.ts';
import { IDEMPOTENCY_TTL_HOURS } from '../../domain/memory/idempotency.ts';
import { reportInputSchema } from '../../domain/memory/schemas.ts';
import { RISK_LEVELS } from '../../domain/scoring/levels.ts';
import { DIMENSION_CODES } from '../../domain/network/types.ts';
import { COMMUNITY_LABELS, UNAVAILABLE_LABEL } from '../../domain/community/signal.ts';
import {
  EVENT_TYPE_CODES, OUTCOME_CODES, RATING_VALUES, REPORT_STATUS_CODES, ROLE_CODES, SEVERITY_CODES, SHARE_POLICY_CODES,
  SUBJECT_KIND_CODES, VISIBILITY_CODES,
} from '../../domain/memory/vocabulary.ts';

/**
 * JSON Schemas of the REST bodies (OpenAPI 3.1 = JSON Schema 2020-12), in wire (snake_case) names. Request bodies
 * are generated from the zod schemas that validate them; responses are written here from the same vocabularies
 * the domain enforces. Every object lists its always-present properties in `required`; test/integration/
 * openapi-contract.test.ts checks live answers against them with no undocumented property allowed. The MCP
 * tools reuse these as their output schemas, so none of them holds a `$ref`.
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
  return wireNames(json) as Record<string, unknown> & { properties: Record<string, Record<string, unknown>> };
}

type Schema = Record<string, unknown>;
type ObjectSchema<P extends Record<string, Schema>> = { type: 'object' | ['object', 'null']; required: string[]; properties: P; description?: string };

/** An object whose properties are all always sent, except those named in `optional`. */
export function object<P extends Record<string, Schema>>(properties: P, opts: { optional?: Array<keyof P>; nullable?: boolean; description?: string } = {}): ObjectSchema<P> {
  return {
    type: opts.nullable ? ['object', 'null'] : 'object',
    required: Object.keys(properties).filter((k) => !opts.optional?.includes(k)),
    properties,
    ...(opts.description ? { description: opts.description } : {}),
  };
}

export const count = { type: 'integer', minimum: 0 };
export const str = { type: 'string' };
const score0to100 = { type: 'integer', minimum: 0, maximum: 100 };
export const dateTime = { type: 'string', format: 'date-time' };
export const nullableDateTime = { type: ['string', 'null'], format: 'date-time' };
const typeOf = (values: readonly unknown[]) => (values.every((v) => typeof v === 'string') ? 'string' : 'integer');
export const enumOf = (values: readonly unknown[], description?: string) => ({ type: typeOf(values), enum: [...values], ...(description ? { description } : {}) });
const nullableEnumOf = (values: readonly unknown[], description: string) => ({ type: [typeOf(values), 'null'], enum: [...values, null], description });

export const RISK_LEVEL_WORDS = RISK_LEVELS.map((l) => l.level);
const levelText = RISK_LEVELS.map((l) => `${l.level} ${l.min}-${l.max}`).join(', ');

export const errorBody = object({
  ok: { const: false },
  error: { type: 'string', enum: Object.keys(ERRORS), description: 'Stable machine-readable code (docs/api.md, status codes and errors).' },
  message: { type: 'string', description: 'What went wrong and what to do, in English.' },
  details: {
    type: 'array', description: 'Validation errors: one entry per offending field, named as on the wire (e.g. related_subjects[2].key).',
    items: object({ field: str, message: str }),
  },
  request_id: { type: 'string', description: 'internal_error and database_unavailable: the X-Request-Id to quote.' },
  quota: object({ daily_limit: count, used_today: count, remaining: count, over_limit: { type: 'boolean' }, resets_at: dateTime }, { description: 'quota_exceeded: the daily quota and when it resets (00:00 UTC).' }),
  burst: object({ limit: count, window_s: count }, { description: 'rate_limited: the per-key burst limit that was exceeded.' }),
  in_flight: object({ maximum: count }, { description: 'rate_limited by score/batch: the most batches a workspace may have running or waiting on one server.' }),
}, { optional: ['details', 'request_id', 'quota', 'burst', 'in_flight'] });

export const freeQuota = object({ counted: { const: false }, reason: { const: 'free_endpoint' } }, { description: 'Free endpoint: never counted against the score quota.' });
const counts = object({ reports: count, bad_ratings: count, neutral_ratings: count, good_ratings: count, feed_listings: count });
const publication = object({
  version: { type: 'integer', minimum: 0, description: 'Publication version (0: nothing published yet).' },
  published_at: { ...nullableDateTime, description: 'When it was published; null before the first publication.' },
}, { description: 'The publication the answer was computed from (one per call, never a mix).' });
const dimensionCode = enumOf(DIMENSION_CODES, 'Dimension code.');
/** ok, state and metrics: the community signal of an IP and, in the same layout, of its networks. */
const signalParts = {
  ok: { type: 'boolean', description: 'false when the signal could not be read for this call (label unavailable, zeros).' },
  state: object({
    label: enumOf([...COMMUNITY_LABELS.map((l) => l.label), UNAVAILABLE_LABEL], COMMUNITY_LABELS.map((l) => `${l.label}: ${l.meaning}`).join('; ')),
    has_spike: { type: 'boolean' },
  }),
  metrics: object({ lookups_10m: count, requesters_60m: count, spike_windows_7d: count }),
};
const networkSignal = (code: string, what: string) => object(
  { key: { type: 'string', description: `Entity key of the ${code} dimension.` }, ...signalParts },
  { nullable: true, description: `The community signal of ${what}; null when the IP has none.` },
);

export const overrideTargetKind = enumOf(TARGET_KINDS, 'What the rule covers: ip, cidr (a block), asn (AS<n>) or country (ISO 3166-1 alpha-2).');
export const overrideAction = enumOf(OVERRIDE_ACTIONS, 'allow: level minimal; deny: level critical; adjust: points added to the score, clamped to 0-100.');
export const overridePoints = { type: 'integer', minimum: -OVERRIDE_LIMITS.points, maximum: OVERRIDE_LIMITS.points, description: 'adjust: points added (negative: removed); 0 for allow and deny.' };
export const person = object({ kind: enumOf(['api_key', 'account']), id: count, label: { type: 'string', description: 'The key\'s name and prefix, or the account\'s e-mail, at the time.' } });

const overrideApplied = object({
  rule_id: count, target_kind: overrideTargetKind, target: { type: 'string', description: 'The IP, block, AS or country the rule names.' }, action: overrideAction, points: overridePoints,
  reason: str, expires_at: { ...nullableDateTime, description: 'When the rule stops applying; null: until expired.' },
  evidence_score: { type: 'integer', minimum: 0, maximum: 100, description: 'The overall score the published evidence gives, before the rule.' },
  evidence_level: enumOf(RISK_LEVEL_WORDS, 'Its risk level.'),
  explanation: { type: 'string', description: 'One sentence: which rule changed the score, from what to what.' },
}, { nullable: true, description: 'The workspace\'s override rule that changed overall_score and overall_risk_level (the most specific in force: IP, then CIDR by longest prefix, then AS, then country); null when none applies. The dimensions are the published ones, unchanged.' });

export const scoreResponse = object({
  ok: { const: true }, endpoint: { const: 'score' },
  query: object({ ip: { type: 'string', description: 'The address scored, in canonical form.' } }),
  api_key: object({ name: str, prefix: str }, { description: 'The calling key (never its secret).' }),
  quota: object({
    daily_limit: count, used_today: count, remaining: count,
    over_limit: { type: 'boolean', description: 'true when remaining is 0: the next score today is refused' },
  }, { description: 'The daily score quota after this call.' }),
  score: object({
    overall_score: score0to100,
    overall_risk_level: enumOf(RISK_LEVEL_WORDS, `Risk level of the overall score: ${levelText}.`),
    matched_count: { type: 'integer', minimum: 0, maximum: DIMENSION_CODES.length },
    driver: nullableEnumOf(DIMENSION_CODES, 'The dimension that contributed most; null when the score is 0.'),
    dimensions: {
      type: 'array', minItems: DIMENSION_CODES.length, maxItems: DIMENSION_CODES.length,
      description: `All ${DIMENSION_CODES.length}, in the order ${DIMENSION_CODES.join(', ')}.`,
      items: object({
        code: dimensionCode,
        matched: { type: 'boolean', description: 'A summary exists for the entity (published or the workspace\'s own).' },
        score: score0to100,
        entity: object({ key: str, name: str }, { nullable: true, description: 'null when the IP has none in this dimension.' }),
        level: nullableEnumOf(RISK_LEVEL_WORDS, 'Risk level of the entity\'s score; null when unmatched.'),
        weight: { type: 'number', minimum: 0 },
        contribution: { ...count, description: 'Points of the overall score due to this dimension (they add up to it, or to override.evidence_score when a rule changed it).' },
        source: nullableEnumOf(['published', 'workspace', 'both'], 'Where the summary came from; null when unmatched.'),
        reason: { type: ['string', 'null'], description: 'Why unmatched; null when matched.' },
        evidence: { ...object(counts.properties, { nullable: true }), description: 'Evidence counts; null when unmatched.' },
      }),
    },
  }),
  override: overrideApplied,
  community_signal: object({
    ...signalParts,
    recent_query_windows: { type: 'array', items: object({ label: { type: 'string', description: 'UTC start of the 10-minute window, HH:MM.' }, hits: count, requesters: count }) },
    networks: object({
      subnet: networkSignal('subnet', 'the IP\'s announced or fallback subnet'),
      asn: networkSignal('asn', 'the autonomous system announcing the IP'),
    }, { description: 'The same signal for the IP\'s networks, so lookups spreading over a range show before any single IP spikes.' }),
  }, { description: 'Lookup activity on this IP across all workspaces (docs/risk-model.md, community signal).' }),
  links: object({
    ip: { type: 'string', format: 'uri', description: 'Direct report page of the IP (control plane).' },
    dimensions: { type: 'object', propertyNames: dimensionCode, additionalProperties: { type: 'string', format: 'uri' }, description: 'Report page of each matched dimension entity, by dimension code.' },
  }),
  workspace_memory: object({
    ratings: object({ good: count, neutral: count, bad: count }),
    last_rating: object({ rating: enumOf(RATING_VALUES), note: str, created_at: dateTime }, { nullable: true }),
    reports: { ...count, description: 'Reports of the workspace naming the IP.' },
  }, { description: 'What the calling workspace itself wrote about the IP.' }),
  publication,
});

/** The batch: one item per requested IP, each the single score's answer less its key and quota, or its own error. */
const { ok: _ok, endpoint: _endpoint, api_key: apiKey, quota: scoreQuota, ...scoredParts } = scoreResponse.properties;
export const scoreBatchResponse = object({
  ok: { const: true }, endpoint: { const: 'score_batch' },
  api_key: apiKey,
  quota: { ...scoreQuota, description: 'The daily score quota after this batch: one call counted per distinct valid IP.' },
  results: {
    type: 'array', minItems: 1, maxItems: MAX_BATCH_IPS,
    description: 'One item per requested IP, in request order; a repeated IP (after canonicalisation) repeats its answer.',
    items: {
      oneOf: [
        object({ ok: { const: true }, ...scoredParts }, { description: 'Scored: the same objects as the single score answer.' }),
        object({
          ip: { type: 'string', description: 'The item as sent.' }, ok: { const: false },
          error: { const: INVALID_IP }, message: { type: 'string', description: 'What is wrong with it.' },
        }, { description: 'Not an IPv4 or IPv6 address: not scored and not counted.' }),
      ],
    },
  },
});

const summary = (description: string) => object({
  score: score0to100, level: enumOf(RISK_LEVEL_WORDS), counts, reporters: count,
  first_seen: nullableDateTime, last_seen: nullableDateTime,
}, { nullable: true, description });

export const dimensionsResponse = object({
  ok: { const: true }, endpoint: { const: 'dimensions' },
  query: object({ ip: str }),
  quota: freeQuota,
  ip: object({
    address: { type: 'string', description: 'Canonical address.' },
    version: enumOf([4, 6]),
    subnet_source: enumOf(['announced', 'fallback', 'none'], 'announced (routing data), fallback (/24 or /48) or none (special-purpose address).'),
    special: object({ cidr: str, name: str, reason: str }, { nullable: true, description: 'Set for special-purpose addresses (private, loopback, documentation, ...).' }),
  }),
  publication,
  dimensions: {
    type: 'array', minItems: DIMENSION_CODES.length, maxItems: DIMENSION_CODES.length,
    items: object({
      code: dimensionCode,
      matched: { type: 'boolean' },
      entity: object({ key: str, name: str, size: { type: 'number', minimum: 0, description: 'Addresses in the entity.' } }, { nullable: true }),
      reason: { type: ['string', 'null'] },
      published: summary('The published (global) summary; null when none.'),
      workspace: summary('The calling workspace\'s own layer; null when none.'),
    }),
  },
});

/** check_block: the block, the networks holding it, its evidence totals and one page of its IPs. */
const blockNetwork = (what: string) => object({
  key: str, name: str, size: { type: 'number', minimum: 0, description: 'Addresses in the entity.' },
  published: summary('The published (global) summary; null when none.'),
  workspace: summary('The calling workspace\'s own layer; null when none.'),
}, { nullable: true, description: `The ${what} holding the whole block; null when the block spans more than one subnet (reason says why).` });
const ratingCounts = object({ good: count, neutral: count, bad: count }, { description: 'The calling workspace\'s ratings, by value.' });

export const checkBlockResponse = object({
  ok: { const: true }, endpoint: { const: 'check_block' },
  query: object({
    input: { type: 'string', description: 'The cidr as sent.' },
    cidr: { type: 'string', description: 'The block read: the canonical form of the one sent (host bits cleared).' },
    host_bits_cleared: { type: 'boolean', description: 'true when the cidr sent had host bits set, which were cleared.' },
  }),
  api_key: apiKey,
  quota: { ...scoreQuota, description: 'The daily score quota after this call: a block check counts as one score call.' },
  block: object({
    cidr: str, version: enumOf([4, 6]), prefix: { type: 'integer', minimum: 16, maximum: 128 },
    first_address: str, last_address: str,
    size: { type: 'string', pattern: '^[0-9]+$', description: 'Addresses in the block, as a decimal string (an IPv6 /48 holds 2^80).' },
    networks: object({
      subnet: blockNetwork('subnet entity'), asn: blockNetwork('autonomous system'), org: blockNetwork('organisation'),
      reason: { type: ['string', 'null'], description: 'Why the networks are null; null when the block lies in one subnet.' },
    }),
    counts_by_outcome: {
      type: 'object', propertyNames: enumOf(OUTCOME_CODES), additionalProperties: count,
      description: 'Reports the caller may see (its workspace\'s, and every community-visible one) naming an IP of the block, by outcome code; each report once. Outcomes without reports are omitted.',
    },
    reports: { ...count, description: 'Those reports in all.' },
    ratings: ratingCounts,
    first_seen: { ...nullableDateTime, description: 'Oldest of those reports and ratings.' },
    last_seen: { ...nullableDateTime, description: 'Newest of those reports and ratings.' },
    community_signal: object({
      available: { type: 'boolean', description: 'false when no subnet entity holds the whole block.' },
      reason: { type: ['string', 'null'], description: 'Why no signal describes the block; null when available.' },
      subnet: networkSignal('subnet', 'the subnet holding the block'),
    }, { description: 'Lookup activity on the block\'s subnet across all workspaces.' }),
  }),
  ips: object({
    items: {
      type: 'array', maxItems: MAX_BLOCK_PAGE, description: 'Reported or rated IPs of the block the caller may see, in address order.',
      items: object({
        ip: str, score: score0to100, level: enumOf(RISK_LEVEL_WORDS, `Risk level of the score: ${levelText}.`),
        reports: { ...count, description: 'Reports the caller may see naming the IP.' },
        ratings: ratingCounts,
        first_seen: nullableDateTime, last_seen: nullableDateTime,
      }),
    },
    next_cursor: { type: ['string', 'null'], description: 'Send as cursor for the next page; null on the last page.' },
  }),
  publication,
});

export const rateResponse = object({
  ok: { const: true }, endpoint: { const: 'rate' }, quota: freeQuota,
  report: object({ ip: str, rating: enumOf(RATING_VALUES, '1 good, 0 neutral, -1 bad.'), created_at: dateTime }, { description: 'The stored rating.' }),
});

const subjectKind = enumOf(SUBJECT_KIND_CODES);
const relatedSubjects = { type: 'array', items: object({ kind: subjectKind, key: str, role: enumOf(ROLE_CODES) }) };

export const reportResponse = object({
  ok: { const: true }, endpoint: { const: 'report' },
  query: object({ kind: subjectKind, key: { type: 'string', description: 'The key as stored (normalised by kind).' }, namespace: str }),
  quota: freeQuota,
  memory: object({
    requested_visibility: enumOf(VISIBILITY_CODES), effective_visibility: enumOf(VISIBILITY_CODES),
    policy_notice: { type: 'string', description: 'Why the effective visibility differs; empty when it does not.' },
  }),
  report: object({
    id: { type: 'integer', minimum: 1 }, event_type: enumOf(EVENT_TYPE_CODES), outcome_code: enumOf(OUTCOME_CODES), title: str,
    summary: str, severity: enumOf(SEVERITY_CODES), status: enumOf(REPORT_STATUS_CODES), tags: { type: 'array', items: str },
    created_at: dateTime,
    subject: object({ kind: subjectKind, key: str, share_policy: enumOf(SHARE_POLICY_CODES) }),
    related_subjects: relatedSubjects,
  }, { description: 'The stored report.' }),
});

/** A line of a bulk report (an NDJSON line, an MCP list item): `report`'s body and its own idempotency key. */
export function bulkLineSchema() {
  const report = bodySchema(reportInputSchema);
  return {
    ...report,
    description: 'One report of a bulk request: a `report` body (the same fields, rules and messages) with an optional idempotency_key.',
    properties: {
      ...report.properties,
      idempotency_key: {
        type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$',
        description: `This report's Idempotency-Key (kept ${IDEMPOTENCY_TTL_HOURS} hours, shared with \`report\`): the same key with the same report is replayed, with another report refused for this line alone.`,
      },
    },
  };
}

/** The codes a bulk report answers a line with: the line's own refusal, or its chunk's failure to write. */
export const BULK_LINE_ERRORS = ['invalid_json', 'invalid_request', 'idempotency_key_reused', 'database_unavailable', 'internal_error'] as const;

export const bulkReportResponse = object({
  ok: { const: true }, endpoint: { const: 'report_bulk' },
  quota: freeQuota,
  chunk_size: { type: 'integer', minimum: 1, description: 'Lines stored per transaction: a failed chunk stored none of its lines.' },
  totals: object({ lines: count, created: count, replayed: count, errors: count }, { description: 'Results by status; lines = created + replayed + errors.' }),
  results: {
    type: 'array', description: 'One result per report, in body order.',
    items: {
      oneOf: [
        object({
          line: { type: 'integer', minimum: 1, description: 'The line the report starts on (1-based; a CSV header is line 1), or its position in a list (1-based).' },
          status: { type: 'string', enum: ['created', 'replayed'], description: 'created: stored now; replayed: its idempotency_key matched an earlier write of the same report, nothing was written.' },
          id: { type: 'integer', minimum: 1, description: 'The report\'s id (the first write\'s, for a replay).' },
        }),
        object({
          line: { type: 'integer', minimum: 1 },
          status: { const: 'error' },
          error: { type: 'string', enum: [...BULK_LINE_ERRORS], description: 'invalid_json / invalid_request: this line, as `report` would refuse its body; idempotency_key_reused: its key was used with another report; database_unavailable / internal_error: its chunk could not be written (nothing of it was), resend the line.' },
          message: str,
          details: { type: 'array', description: 'The invalid fields, named as in `report`\'s errors (empty when the line is not JSON or its chunk failed).', items: object({ field: str, message: str }) },
        }),
      ],
    },
  },
});

/** One exported report: a line of the NDJSON export (the CSV has the same columns, flattened). */
export const exportRecord = object({
  id: { type: 'integer', minimum: 1 }, created_at: dateTime, subject: object({ kind: subjectKind, key: str }),
  event_type: enumOf(EVENT_TYPE_CODES), outcome_code: enumOf(OUTCOME_CODES), severity: enumOf(SEVERITY_CODES),
  status: enumOf(REPORT_STATUS_CODES), title: str, summary: str, tags: { type: 'array', items: str }, namespace: str,
  share_policy: enumOf(SHARE_POLICY_CODES), effective_visibility: enumOf(VISIBILITY_CODES), related_subjects: relatedSubjects,
});

export const healthBody = object({ ok: { const: true } });
const checkState = enumOf(['ok', 'unreachable']);
export const readinessBody = object({
  ok: { type: 'boolean', description: 'true when every check is ok and the server is not draining.' },
  checks: object({ database: checkState, counters: checkState }, { description: 'One ping per dependency.' }),
  draining: { type: 'boolean', description: 'true once shutdown began.' },
});
