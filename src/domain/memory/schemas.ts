/**
 * The request schemas of `rate` and `report`, in domain (camelCase) form. The REST facade maps
 * snake_case wire names onto these (validation.ts) and GraphQL inputs use the same names, so
 * both surfaces accept and reject exactly the same bodies. Every message is written here, in
 * plain English, and toDetails passes it through.
 *
 * JSON Schema for OpenAPI: `z.toJSONSchema(schema, { io: 'input' })` works as is (transforms
 * sit on the output side of pipes, which input mode never visits).
 */
import { z } from 'zod';
import { parseIp } from '../network/ip.ts';
import { checkInput, given } from '../validation.ts';
import { isSubjectKind, SUBJECT_KIND_CODES, SUBJECT_KINDS } from '../subjects/kinds.ts';
import { normalizeSubjectKey } from '../subjects/normalize.ts';
import { codePointLength, textProblem } from '../subjects/text.ts';
import {
  DEFAULT_EVENT_TYPE,
  DEFAULT_ROLE,
  DEFAULT_SEVERITY,
  DEFAULT_SHARE_POLICY,
  DEFAULT_VISIBILITY,
  EVENT_TYPE_CODES,
  OUTCOME_CODES,
  RATING_VALUES,
  REPORT_STATUS_CODES,
  ROLE_CODES,
  SEVERITY_CODES,
  SHARE_POLICY_CODES,
  VISIBILITY_CODES,
} from './vocabulary.ts';

export const LIMITS = {
  note: 1000,
  title: 200,
  summary: 500,
  details: 10_000,
  tags: 20,
  tagLength: 40,
  relatedSubjects: 50,
  namespaceLength: 64,
} as const;

export const RATING_MESSAGE = 'must be an integer: 1 (good), 0 (neutral) or -1 (bad)';
const TAG = /^[a-z0-9][a-z0-9:_.-]*$/;
const NAMESPACE = /^[a-z0-9][a-z0-9_.-]*$/;

type Issue = { input?: unknown };
export const typeError = (expected: string) => (iss: Issue) =>
  iss.input === undefined ? 'is required' : `must be ${expected}`;
const listed = (codes: readonly string[]) => codes.map((c) => (c === '' ? '"" (empty)' : c)).join(', ');

export function enumField<const T extends readonly [string, ...string[]]>(codes: T) {
  return z.enum(codes, {
    error: (iss: Issue) => (iss.input === undefined ? 'is required' : `must be one of: ${listed(codes)}`),
  });
}

/** A string field: well-formed, no control characters (\n and \t allowed when multiline), at most `max` code points. */
export function text(max: number, multiline = false) {
  return z
    .string({ error: typeError('a string') })
    .check((ctx) => {
      const problem = textProblem(ctx.value, multiline);
      const message = problem || (codePointLength(ctx.value) > max ? `must be at most ${max} characters` : '');
      if (message) ctx.issues.push({ code: 'custom', message, input: ctx.value });
    })
    .meta({ maxLength: max });
}

/**
 * Optional field: absent or null means the default. JSON clients often serialise unset
 * optionals as null, and GraphQL treats null and absent alike; both surfaces agree this way.
 */
export function withDefault<S extends z.ZodType>(schema: S, fallback: z.output<S>, description: string) {
  return schema
    .nullable()
    .default(fallback as never)
    .transform((v) => (v ?? fallback) as z.output<S>)
    .meta({ description });
}

/** A string turned into something else (or refused with `reason`) by `convert`. */
function converted<T>(convert: (value: string) => { ok: true; value: T } | { ok: false; reason: string }) {
  return z.string({ error: typeError('a string') }).transform((value, ctx) => {
    const result = convert(value);
    if (result.ok) return result.value;
    ctx.addIssue({ code: 'custom', message: result.reason, input: value });
    return z.NEVER;
  });
}

const ipField = (description: string) =>
  converted((v) => {
    const p = parseIp(v);
    return p.ok ? { ok: true, value: p.canonical } : p;
  }).meta({ description });

/** The body of `score` and of the raw `dimensions` read: one IP. */
export const ipQuerySchema = z.strictObject(
  {
    ip: ipField('IPv4 or IPv6 address to look up (IPv4-mapped IPv6 is read as the IPv4 address).'),
  },
  { error: typeError('a JSON object') },
);

export const rateInputSchema = z.strictObject(
  {
    ip: ipField('IPv4 or IPv6 address being rated; stored in canonical form.'),
    rating: z
      .literal(RATING_VALUES, { error: (iss: Issue) => (iss.input === undefined ? 'is required' : RATING_MESSAGE) })
      .meta({ type: 'integer', description: '1 = good, 0 = neutral, -1 = bad.' }),
    note: withDefault(text(LIMITS.note, true), '', 'Free-text comment (default empty).'),
  },
  { error: typeError('a JSON object') },
);

function normalizeTag(raw: string): { ok: true; value: string } | { ok: false; reason: string } {
  const tag = raw.trim().toLowerCase();
  const problem = textProblem(tag);
  if (problem) return { ok: false, reason: problem };
  if (tag.length === 0) return { ok: false, reason: 'must not be empty' };
  if (tag.length > LIMITS.tagLength) return { ok: false, reason: `must be at most ${LIMITS.tagLength} characters` };
  if (!TAG.test(tag))
    return { ok: false, reason: 'may contain only a-z, 0-9 and ":", "_", ".", "-", starting with a letter or digit' };
  return { ok: true, value: tag };
}

// Tags and namespace are rewritten (trimmed, lower-cased) AFTER the default is applied: zod
// leaves `default` out of the input JSON Schema when a transform sits inside the default.
const tagsField = z
  .array(z.string({ error: typeError('a string') }), { error: typeError('an array of strings') })
  .max(LIMITS.tags, { error: `must have at most ${LIMITS.tags} tags` })
  .nullable()
  .default([])
  .transform((raw, ctx) => {
    const tags = new Set<string>();
    (raw ?? []).forEach((t, i) => {
      const result = normalizeTag(t);
      if (result.ok) tags.add(result.value);
      else ctx.addIssue({ code: 'custom', path: [i], message: result.reason, input: t });
    });
    return [...tags];
  })
  .meta({
    description: `Up to ${LIMITS.tags} tags of 1-${LIMITS.tagLength} characters (a-z, 0-9, ":", "_", ".", "-"), lower-cased; duplicates removed.`,
  });

const namespaceField = z
  .string({ error: typeError('a string') })
  .nullable()
  .default('')
  .transform((raw, ctx) => {
    const ns = (raw ?? '').trim().toLowerCase();
    if (ns === '' || (ns.length <= LIMITS.namespaceLength && NAMESPACE.test(ns))) return ns;
    ctx.addIssue({
      code: 'custom',
      input: raw,
      message: `must be empty or 1-${LIMITS.namespaceLength} characters of a-z, 0-9, "_", "." and "-", starting with a letter or digit`,
    });
    return z.NEVER;
  })
  .meta({ description: 'Optional namespace within the workspace, lower-cased (default empty).' });

/** A subject key: only text hygiene here; the kind-specific rule runs once the kind is known. */
const keyField = z
  .string({ error: typeError('a string') })
  .meta({ description: 'The identifier itself, normalised by kind.' });
const kindField = enumField(SUBJECT_KIND_CODES).meta({
  description: SUBJECT_KINDS.map((k) => `${k.code}: ${k.meaning}`).join('\n'),
});

type WithKey = { kind: unknown; key: unknown };
/** Runs the key check even when other fields failed, so one response lists every problem (but not when kind/key themselves failed). */
const kindAndKeyParsed = {
  when: (payload: { issues: Array<{ path?: PropertyKey[] }> }) =>
    !payload.issues.some((i) => i.path?.[0] === 'kind' || i.path?.[0] === 'key'),
};

function checkKey(value: WithKey, ctx: z.RefinementCtx) {
  // `when` lets this run after failures elsewhere, so the value may not even be an object.
  if (typeof value !== 'object' || value === null || !isSubjectKind(value.kind) || typeof value.key !== 'string')
    return;
  const result = normalizeSubjectKey(value.kind, value.key);
  if (!result.ok)
    ctx.addIssue({ code: 'custom', path: ['key'], message: `${result.reason} (kind ${value.kind})`, input: value.key });
}

/** Only called after checkKey passed, so the key is known to normalise. */
function normalizedKey(kind: (typeof SUBJECT_KIND_CODES)[number], key: string): string {
  const result = normalizeSubjectKey(kind, key);
  if (!result.ok)
    throw new Error(`key of kind ${kind} failed normalisation after passing validation: ${result.reason}`);
  return result.key;
}

const relatedSubjectSchema = z
  .strictObject(
    {
      kind: kindField,
      key: keyField,
      role: withDefault(enumField(ROLE_CODES), DEFAULT_ROLE, `Role the subject played (default ${DEFAULT_ROLE}).`),
    },
    { error: typeError('an object with kind, key and role') },
  )
  .superRefine(checkKey, kindAndKeyParsed)
  .transform((r) => ({ ...r, key: normalizedKey(r.kind, r.key) }));

const reportFields = z.strictObject(
  {
    kind: kindField,
    key: keyField,
    title: withDefault(text(LIMITS.title), '', 'Short headline.'),
    summary: withDefault(text(LIMITS.summary, true), '', 'One-line summary.'),
    details: withDefault(text(LIMITS.details, true), '', 'Longer free text.'),
    outcomeCode: enumField(OUTCOME_CODES).meta({ description: 'Outcome classification.' }),
    severity: withDefault(enumField(SEVERITY_CODES), DEFAULT_SEVERITY, `Severity (default ${DEFAULT_SEVERITY}).`),
    tags: tagsField,
    relatedSubjects: withDefault(
      z
        .array(relatedSubjectSchema, { error: typeError('an array of objects') })
        .max(LIMITS.relatedSubjects, { error: `must have at most ${LIMITS.relatedSubjects} related subjects` }),
      [],
      `Up to ${LIMITS.relatedSubjects} other subjects linked to this report, each with its role.`,
    ),
    sharePolicy: withDefault(
      enumField(SHARE_POLICY_CODES),
      DEFAULT_SHARE_POLICY,
      `TLP 2.0 style share policy (default ${DEFAULT_SHARE_POLICY}).`,
    ),
    visibility: withDefault(
      enumField(VISIBILITY_CODES),
      DEFAULT_VISIBILITY,
      `Who sees the report (default ${DEFAULT_VISIBILITY}).`,
    ),
    namespace: namespaceField,
    eventType: withDefault(
      enumField(EVENT_TYPE_CODES),
      DEFAULT_EVENT_TYPE,
      `Kind of event (default ${DEFAULT_EVENT_TYPE}).`,
    ),
    status: withDefault(enumField(REPORT_STATUS_CODES), '', 'Workflow status (default empty).'),
  },
  { error: typeError('a JSON object') },
);

/** The fields of a report, in domain (camelCase) names: a bulk CSV body's columns are these (in wire names). */
export const REPORT_FIELD_NAMES = Object.keys(reportFields.shape) as Array<keyof typeof reportFields.shape>;

export const reportInputSchema = reportFields.superRefine(checkKey, kindAndKeyParsed).transform((report, ctx) => {
  const key = normalizedKey(report.kind, report.key);
  const seen = new Set<string>();
  const relatedSubjects: typeof report.relatedSubjects = [];
  report.relatedSubjects.forEach((r, i) => {
    if (r.kind === report.kind && r.key === key) {
      ctx.addIssue({
        code: 'custom',
        path: ['relatedSubjects', i, 'key'],
        message: "is the report's own subject (kind and key); list only other subjects",
        input: r.key,
      });
      return;
    }
    const triple = JSON.stringify([r.kind, r.key, r.role]);
    if (!seen.has(triple)) relatedSubjects.push(r);
    seen.add(triple);
  });
  return { ...report, key, relatedSubjects };
});

export type RateInput = z.output<typeof rateInputSchema>;
export type ReportInput = z.output<typeof reportInputSchema>;

/** A report as GraphQL gives it, checked by the schema: absent and null alike mean the default, nested ones too. */
export function checkReportInput(input: object): ReportInput {
  const raw = given(input as Record<string, unknown>);
  if (Array.isArray(raw.relatedSubjects))
    raw.relatedSubjects = raw.relatedSubjects.map((r) => given(r as Record<string, unknown>));
  return checkInput(reportInputSchema, raw);
}
