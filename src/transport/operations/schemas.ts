import { OVERRIDE_ACTIONS, OVERRIDE_LIMITS } from '../../domain/overrides/schemas.ts';
import { TARGET_KINDS } from '../../domain/overrides/target.ts';
import { from, same } from './wire.ts';
import { z } from 'zod';
import { ERRORS } from '../../errors.ts';
import { RISK_LEVELS } from '../../domain/scoring/levels.ts';
import { DIMENSION_CODES } from '../../domain/network/types.ts';
import { COMMUNITY_LABELS, UNAVAILABLE_LABEL } from '../../domain/community/signal.ts';
import {
  EVENT_TYPE_CODES,
  OUTCOME_CODES,
  REPORT_STATUS_CODES,
  ROLE_CODES,
  SEVERITY_CODES,
  SHARE_POLICY_CODES,
  SUBJECT_KIND_CODES,
  VISIBILITY_CODES,
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
type ObjectSchema<P extends Record<string, Schema>> = {
  type: 'object' | ['object', 'null'];
  required: string[];
  properties: P;
  description?: string;
};

/** An object whose properties are all always sent, except those named in `optional`. */
export function object<P extends Record<string, Schema>>(
  properties: P,
  opts: { optional?: Array<keyof P>; nullable?: boolean; description?: string } = {},
): ObjectSchema<P> {
  return {
    type: opts.nullable ? ['object', 'null'] : 'object',
    required: Object.keys(properties).filter((k) => !opts.optional?.includes(k)),
    properties,
    ...(opts.description ? { description: opts.description } : {}),
  };
}

export const count = { type: 'integer', minimum: 0 };
export const str = { type: 'string' };
export const score0to100 = { type: 'integer', minimum: 0, maximum: 100 };
export const dateTime = { type: 'string', format: 'date-time' };
export const nullableDateTime = { type: ['string', 'null'], format: 'date-time' };
const typeOf = (values: readonly unknown[]) => (values.every((v) => typeof v === 'string') ? 'string' : 'integer');
export const enumOf = (values: readonly unknown[], description?: string) => ({
  type: typeOf(values),
  enum: [...values],
  ...(description ? { description } : {}),
});
export const nullableEnumOf = (values: readonly unknown[], description: string) => ({
  type: [typeOf(values), 'null'],
  enum: [...values, null],
  description,
});

export const RISK_LEVEL_WORDS = RISK_LEVELS.map((l) => l.level);
export const levelText = RISK_LEVELS.map((l) => `${l.level} ${l.min}-${l.max}`).join(', ');

export const errorBody = object(
  {
    ok: { const: false },
    error: {
      type: 'string',
      enum: Object.keys(ERRORS),
      description: 'Stable machine-readable code (docs/api.md, status codes and errors).',
    },
    message: { type: 'string', description: 'What went wrong and what to do, in English.' },
    details: {
      type: 'array',
      description:
        'Validation errors: one entry per offending field, named as on the wire (e.g. related_subjects[2].key).',
      items: object({ field: str, message: str }),
    },
    request_id: { type: 'string', description: 'internal_error and database_unavailable: the X-Request-Id to quote.' },
    quota: object(
      { daily_limit: count, used_today: count, remaining: count, over_limit: { type: 'boolean' }, resets_at: dateTime },
      { description: 'quota_exceeded: the daily quota and when it resets (00:00 UTC).' },
    ),
    burst: object(
      { limit: count, window_s: count },
      { description: 'rate_limited: the per-key burst limit that was exceeded.' },
    ),
    in_flight: object(
      { maximum: count },
      {
        description:
          'rate_limited by score/batch: the most batches a workspace may have running or waiting on one server.',
      },
    ),
  },
  { optional: ['details', 'request_id', 'quota', 'burst', 'in_flight'] },
);

export const freeQuota = object(
  { counted: { const: false }, reason: { const: 'free_endpoint' } },
  { description: 'Free endpoint: never counted against the score quota.' },
);
export const counts = object({
  reports: count,
  bad_ratings: count,
  neutral_ratings: count,
  good_ratings: count,
  feed_listings: count,
});
export const publication = object(
  {
    version: { type: 'integer', minimum: 0, description: 'Publication version (0: nothing published yet).' },
    published_at: { ...nullableDateTime, description: 'When it was published; null before the first publication.' },
  },
  { description: 'The publication the answer was computed from (one per call, never a mix).' },
);
export const dimensionCode = enumOf(DIMENSION_CODES, 'Dimension code.');
/** ok, state and metrics: the community signal of an IP and, in the same layout, of its networks. */
export const signalParts = {
  ok: {
    type: 'boolean',
    description: 'false when the signal could not be read for this call (label unavailable, zeros).',
  },
  // The domain's signal is flat: state and metrics group its fields on the wire.
  state: same(
    object({
      label: enumOf(
        [...COMMUNITY_LABELS.map((l) => l.label), UNAVAILABLE_LABEL],
        COMMUNITY_LABELS.map((l) => `${l.label}: ${l.meaning}`).join('; '),
      ),
      has_spike: { type: 'boolean' },
    }),
  ),
  metrics: same(object({ lookups_10m: count, requesters_60m: count, spike_windows_7d: count })),
};
export const networkSignal = (code: string, what: string) =>
  object(
    { key: { type: 'string', description: `Entity key of the ${code} dimension.` }, ...signalParts },
    { nullable: true, description: `The community signal of ${what}; null when the IP has none.` },
  );

export const overrideTargetKind = enumOf(
  TARGET_KINDS,
  'What the rule covers: ip, cidr (a block), asn (AS<n>) or country (ISO 3166-1 alpha-2).',
);
export const overrideAction = enumOf(
  OVERRIDE_ACTIONS,
  'allow: level minimal; deny: level critical; adjust: points added to the score, clamped to 0-100.',
);
export const overridePoints = {
  type: 'integer',
  minimum: -OVERRIDE_LIMITS.points,
  maximum: OVERRIDE_LIMITS.points,
  description: 'adjust: points added (negative: removed); 0 for allow and deny.',
};
export const person = object({
  kind: enumOf(['api_key', 'account']),
  id: count,
  label: { type: 'string', description: "The key's name and prefix, or the account's e-mail, at the time." },
});
/** `person` read from a row that holds it flat, as `<prefix>Kind`, `<prefix>Id` and `<prefix>Label` (rules, watches). */
export const personOf = (prefix: string) =>
  same(
    object({
      kind: from(`${prefix}Kind`, person.properties.kind),
      id: from(`${prefix}Id`, person.properties.id),
      label: from(`${prefix}Label`, person.properties.label),
    }),
  );

export const overrideApplied = object(
  {
    rule_id: count,
    target_kind: overrideTargetKind,
    target: { type: 'string', description: 'The IP, block, AS or country the rule names.' },
    action: overrideAction,
    points: overridePoints,
    reason: str,
    expires_at: { ...nullableDateTime, description: 'When the rule stops applying; null: until expired.' },
    evidence_score: {
      type: 'integer',
      minimum: 0,
      maximum: 100,
      description: 'The overall score the published evidence gives, before the rule.',
    },
    evidence_level: enumOf(RISK_LEVEL_WORDS, 'Its risk level.'),
    explanation: { type: 'string', description: 'One sentence: which rule changed the score, from what to what.' },
  },
  {
    nullable: true,
    description:
      "The workspace's override rule that changed overall_score and overall_risk_level (the most specific in force: IP, then CIDR by longest prefix, then AS, then country); null when none applies. The dimensions are the published ones, unchanged.",
  },
);

/** A dimension entity's summary (dimensions, check_block). */
export const summary = (description: string) =>
  object(
    {
      score: score0to100,
      level: enumOf(RISK_LEVEL_WORDS),
      counts,
      reporters: count,
      first_seen: nullableDateTime,
      last_seen: nullableDateTime,
    },
    { nullable: true, description },
  );

/** The calling key, as every metered answer names it. */
export const apiKey = object({ name: str, prefix: str }, { description: 'The calling key (never its secret).' });
/** The daily score quota after a metered call, as its answer states it. */
export const scoreQuota = object(
  {
    daily_limit: count,
    used_today: count,
    remaining: count,
    over_limit: { type: 'boolean', description: 'true when remaining is 0: the next score today is refused' },
  },
  { description: 'The daily score quota after this call.' },
);

export const subjectKind = enumOf(SUBJECT_KIND_CODES);
export const relatedSubjects = {
  type: 'array',
  items: object({ kind: subjectKind, key: str, role: enumOf(ROLE_CODES) }),
};

/** One exported report: a line of the NDJSON export (the CSV has the same columns, flattened). */
export const exportRecord = object({
  id: { type: 'integer', minimum: 1 },
  created_at: dateTime,
  subject: object({ kind: subjectKind, key: str }),
  event_type: enumOf(EVENT_TYPE_CODES),
  outcome_code: enumOf(OUTCOME_CODES),
  severity: enumOf(SEVERITY_CODES),
  status: enumOf(REPORT_STATUS_CODES),
  title: str,
  summary: str,
  tags: { type: 'array', items: str },
  namespace: str,
  share_policy: enumOf(SHARE_POLICY_CODES),
  effective_visibility: enumOf(VISIBILITY_CODES),
  related_subjects: relatedSubjects,
});

export const healthBody = object({ ok: { const: true } });
const checkState = enumOf(['ok', 'unreachable']);
export const readinessBody = object({
  ok: { type: 'boolean', description: 'true when every check is ok and the server is not draining.' },
  checks: object({ database: checkState, counters: checkState }, { description: 'One ping per dependency.' }),
  draining: { type: 'boolean', description: 'true once shutdown began.' },
});
