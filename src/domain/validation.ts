import type { z } from 'zod';
import { invalidRequest, type ErrorDetail } from '../errors.ts';

/**
 * Instants a request may name (filters, windows): years 1-9999. JavaScript dates reach 271,821 BC,
 * which PostgreSQL's timestamp (from 4713 BC) cannot hold: such a date must be refused, not queried.
 */
export const DATE_RANGE = {
  min: new Date('0001-01-01T00:00:00.000Z'),
  max: new Date('9999-12-31T23:59:59.999Z'),
} as const;
export const inDateRange = (d: Date) =>
  d.getTime() >= DATE_RANGE.min.getTime() && d.getTime() <= DATE_RANGE.max.getTime();

/** ['relatedSubjects', 2, 'key'] → 'relatedSubjects[2].key'; the whole body is 'body'. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? 'body' : out;
}

const a = (noun: string) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);
// Messages zod writes itself (its English locale). Our schemas give their own messages; these
// only reach here from a check that has none, and are rewritten so no zod wording leaks out.
const ZOD_DEFAULT = /^(Invalid|Too (big|small)|Unrecognized)/;

function translate(issue: z.core.$ZodIssue): string {
  if (issue.code === 'custom' || !ZOD_DEFAULT.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      return issue.message.endsWith('received undefined') ? 'is required' : `must be ${a(issue.expected)}`;
    case 'too_big':
    case 'too_small': {
      const bound = issue.code === 'too_big' ? `at most ${String(issue.maximum)}` : `at least ${String(issue.minimum)}`;
      if (issue.origin === 'string')
        return issue.code === 'too_small' && Number(issue.minimum) === 1
          ? 'must not be empty'
          : `must be ${bound} characters`;
      if (issue.origin === 'array') return `must have ${bound} items`;
      return `must be ${bound}`;
    }
    case 'invalid_value':
      return `must be one of: ${issue.values.map((v) => (v === '' ? '"" (empty)' : String(v))).join(', ')}`;
    default:
      return 'is invalid';
  }
}

/**
 * A zod error as a flat list of { field, message } in plain English. Unknown fields become one
 * entry each ("is not a known field") so a typo'd name is pointed at, not just the object.
 */
export function toDetails(error: z.ZodError): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        details.push({ field: fieldPath([...issue.path, key]), message: 'is not a known field' });
    } else {
      details.push({ field: fieldPath(issue.path), message: translate(issue) });
    }
  }
  return details;
}

/** 'relatedSubjects[2].key' → 'related_subjects[2].key': a details path in REST wire names. */
export function camelToSnakePath(path: string): string {
  return path.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

const toCamel = (key: string) => key.replace(/(?<=[a-z0-9])_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Renames snake_case keys to camelCase, recursively through plain objects and arrays (values
 * are never touched). When two keys would collide ("outcome_code" next to "outcomeCode"), the
 * one already in camelCase wins and the other keeps its original name, so a strict schema
 * rejects it as unknown instead of one value silently replacing the other.
 */
export function snakeToCamelKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeToCamelKeys);
  if (!isPlainObject(value)) return value;
  const entries = Object.entries(value);
  const out = new Map<string, unknown>();
  for (const [key, v] of entries) if (toCamel(key) === key) out.set(key, snakeToCamelKeys(v));
  for (const [key, v] of entries) {
    const camel = toCamel(key);
    if (camel !== key) out.set(out.has(camel) ? key : camel, snakeToCamelKeys(v));
  }
  // fromEntries defines own properties, so a "__proto__" key stays data (and is then rejected).
  return Object.fromEntries(out);
}

/** How a surface names what it checked: its words for the input (`problem`) and for each field (`field`). */
export type InputCheck = {
  /** invalidRequest's opening, e.g. 'The watch is invalid'; the default names a request body. */
  problem?: string;
  /** A field's name as the caller sent it (snake_case on REST and MCP); the schema's camelCase by default. */
  field?: (path: string) => string;
  /** Problems the surface found in fields the schema does not hold, refused together with the schema's. */
  extra?: ErrorDetail[];
};

/**
 * The one input checker: the input as the schema reads it, or invalid_request naming every problem at once, the
 * schema's and the surface's own (`extra`). Every surface (REST, GraphQL, MCP, the control plane) checks through here.
 */
export function checkInput<S extends z.ZodType>(schema: S, input: unknown, how: InputCheck = {}): z.output<S> {
  const checked = schema.safeParse(input);
  const rename = how.field;
  const details = checked.success
    ? []
    : rename
      ? toDetails(checked.error).map((d) => ({ field: rename(d.field), message: d.message }))
      : toDetails(checked.error);
  if (how.extra?.length) details.push(...how.extra);
  if (!checked.success || details.length) throw invalidRequest(details, how.problem);
  return checked.data;
}

/** Absent and null alike mean "not given": GraphQL sends null for an optional field left out, a form sends nothing. */
export function given(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null && v !== undefined));
}

/**
 * An update's fields, on every surface alike: absent or null leaves a field unchanged, except the `clearable` ones,
 * where null removes the value (an override's expiry, a watch's score threshold).
 */
export function changes(input: Record<string, unknown>, clearable: readonly string[]): Record<string, unknown> {
  const out = given(input);
  for (const name of clearable) if (input[name] === null) out[name] = null;
  return out;
}
