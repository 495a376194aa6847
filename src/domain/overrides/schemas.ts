import { z } from 'zod';
import { text, typeError, withDefault, enumField } from '../memory/schemas.ts';
import { parseTarget, type Target } from './target.ts';

/** Bounds of the override surfaces (docs/api.md, overrides). */
export const OVERRIDE_LIMITS = {
  /** Rules in force per workspace: creating one more is refused until one expires. */
  activeRules: 10_000,
  reason: 500,
  note: 1000,
  /** |points| of an adjust rule: the whole score range. */
  points: 100,
  /** How far ahead an expiry may be set. */
  expiryDays: 5 * 366,
  /** Rules or audit entries per page of a list (GraphQL's largest page). */
  listPage: 100,
  defaultListPage: 50,
  /** Audit entries per NDJSON export request. */
  exportRows: 10_000,
} as const;

export const OVERRIDE_ACTIONS = ['allow', 'deny', 'adjust'] as const;
export type OverrideAction = (typeof OVERRIDE_ACTIONS)[number];
export const OVERRIDE_ACTION_MEANINGS: ReadonlyArray<{ code: OverrideAction; meaning: string }> = [
  {
    code: 'allow',
    meaning: 'The score answers level minimal (the overall score pulled down to at most the top of that band).',
  },
  {
    code: 'deny',
    meaning: 'The score answers level critical (the overall score raised to at least the bottom of that band).',
  },
  {
    code: 'adjust',
    meaning: "The rule's points are added to the overall score, clamped to 0-100; the level follows the score.",
  },
];
export const RULE_STATES = ['active', 'inactive', 'all'] as const;
export const RULE_STATE_MEANINGS: ReadonlyArray<{ code: RuleState; meaning: string }> = [
  { code: 'active', meaning: 'Rules in force now.' },
  { code: 'inactive', meaning: 'Rules expired by someone or past their own expiry.' },
  { code: 'all', meaning: 'Every rule.' },
];
export type RuleState = (typeof RULE_STATES)[number];

export type CreateOverrideInput = {
  target: Target;
  action: OverrideAction;
  points: number;
  reason: string;
  note: string;
  expiresAt: Date | null;
};

const targetField = z
  .string({ error: typeError('a string') })
  .transform((value, ctx): Target => {
    const parsed = parseTarget(value);
    if (parsed.ok) return parsed.target;
    ctx.addIssue({ code: 'custom', message: parsed.reason, input: value });
    return z.NEVER;
  })
  .meta({
    description:
      'What the rule covers: an IP address, a CIDR block (IPv4 /8 to /32, IPv6 /16 to /128, host bits clear), an AS number (AS64500) or an ISO 3166-1 alpha-2 country code (NL).',
  });

const expiryField = z.string({ error: typeError('an ISO 8601 timestamp') }).transform((value, ctx): Date => {
  const at = /^\d{4}-\d{2}-\d{2}T/.test(value) ? new Date(value) : new Date(NaN);
  const now = Date.now();
  const message = Number.isNaN(at.getTime())
    ? 'must be an ISO 8601 timestamp with a time, such as 2027-01-31T00:00:00Z'
    : at.getTime() <= now
      ? 'must be in the future'
      : at.getTime() > now + OVERRIDE_LIMITS.expiryDays * 86_400_000
        ? `must be at most ${OVERRIDE_LIMITS.expiryDays} days ahead`
        : '';
  if (!message) return at;
  ctx.addIssue({ code: 'custom', message, input: value });
  return z.NEVER;
});

const reasonField = text(OVERRIDE_LIMITS.reason)
  .refine((v) => v.trim().length > 0, 'must not be empty')
  .transform((v) => v.trim())
  .meta({
    description: `Why the rule exists, shown in every score it changes (1 to ${OVERRIDE_LIMITS.reason} characters).`,
  });
const ruleId = z
  .number({ error: typeError('an integer') })
  .int('must be an integer')
  .min(1, 'must be a rule id')
  .max(2_147_483_647, 'must be a rule id')
  .meta({ description: "The rule's id." });

const pageSize = (max: number, fallback: number) =>
  withDefault(
    z
      .number({ error: typeError('an integer') })
      .int('must be an integer')
      .min(1, `must be 1 to ${max}`)
      .max(max, `must be 1 to ${max}`),
    fallback,
    `Items per page, 1 to ${max} (default ${fallback}).`,
  );

/** A cursor is the id of the last item of the previous page (ids only grow); absent or null: the first page. */
const cursorField = z
  .string({ error: typeError('a string') })
  .regex(/^[1-9]\d{0,9}$/, 'must be the next_cursor of a previous page')
  .transform(Number)
  .nullable()
  .optional()
  .meta({ description: 'next_cursor of the previous page (absent or null: the first page).' });

/**
 * The body of createOverride on every surface. allow and deny take no points; adjust takes a non-zero integer.
 * Every field is checked before anything is written: a refused request changes nothing.
 */
export const createOverrideSchema = z
  .strictObject(
    {
      target: targetField,
      action: enumField(OVERRIDE_ACTIONS).meta({
        description:
          'allow: the score answers level minimal; deny: level critical; adjust: points added to the score (clamped to 0-100).',
      }),
      points: z
        .number({ error: typeError('an integer') })
        .int('must be an integer')
        .min(-OVERRIDE_LIMITS.points, `must be -${OVERRIDE_LIMITS.points} to ${OVERRIDE_LIMITS.points}`)
        .max(OVERRIDE_LIMITS.points, `must be -${OVERRIDE_LIMITS.points} to ${OVERRIDE_LIMITS.points}`)
        .nullable()
        .optional()
        .meta({
          description: `adjust only: points added to the score, -${OVERRIDE_LIMITS.points} to ${OVERRIDE_LIMITS.points}, not 0.`,
        }),
      reason: reasonField,
      note: withDefault(
        text(OVERRIDE_LIMITS.note, true),
        '',
        `Internal note, not shown in score answers (at most ${OVERRIDE_LIMITS.note} characters).`,
      ),
      expiresAt: expiryField
        .nullable()
        .optional()
        .meta({
          description: `When the rule stops applying (ISO 8601, in the future, at most ${OVERRIDE_LIMITS.expiryDays} days ahead); absent: until expired.`,
        }),
    },
    { error: typeError('a JSON object') },
  )
  .transform((body, ctx): CreateOverrideInput => {
    const points = body.points ?? null;
    if (body.action === 'adjust' && (points === null || points === 0)) {
      ctx.addIssue({
        code: 'custom',
        path: ['points'],
        message: 'is required for adjust: a non-zero integer',
        input: body.points,
      });
      return z.NEVER;
    }
    if (body.action !== 'adjust' && points !== null) {
      ctx.addIssue({
        code: 'custom',
        path: ['points'],
        message: `must be absent for ${body.action} (only adjust takes points)`,
        input: body.points,
      });
      return z.NEVER;
    }
    return {
      target: body.target,
      action: body.action,
      points: points ?? 0,
      reason: body.reason,
      note: body.note,
      expiresAt: body.expiresAt ?? null,
    };
  });

export type UpdateOverrideInput = { id: number; reason?: string; note?: string; expiresAt?: Date | null };

/** The update fields where null removes the value (no expiry); a null reason or note leaves it unchanged. */
export const UPDATE_OVERRIDE_CLEARABLE = ['expiresAt'] as const;

/**
 * The body of updateOverride: what a rule says and until when, never what it does (target, action, points: a
 * different decision is a new rule, so each decision keeps its own history). At least one field; `expires_at: null`
 * removes the expiry.
 */
export const updateOverrideSchema = z
  .strictObject(
    {
      id: ruleId,
      reason: reasonField.optional(),
      note: text(OVERRIDE_LIMITS.note, true)
        .optional()
        .meta({ description: `New internal note (at most ${OVERRIDE_LIMITS.note} characters).` }),
      expiresAt: expiryField
        .nullable()
        .optional()
        .meta({ description: 'New expiry (ISO 8601, in the future); null removes it.' }),
    },
    { error: typeError('a JSON object') },
  )
  .transform((body, ctx): UpdateOverrideInput => {
    if (body.reason === undefined && body.note === undefined && body.expiresAt === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'must change at least one of reason, note, expires_at',
        input: body,
      });
      return z.NEVER;
    }
    return body as UpdateOverrideInput;
  });

export const expireOverrideSchema = z.strictObject(
  {
    id: ruleId,
  },
  { error: typeError('a JSON object') },
);

export const auditPageSchema = z.strictObject(
  {
    limit: pageSize(OVERRIDE_LIMITS.listPage, OVERRIDE_LIMITS.defaultListPage),
    cursor: cursorField,
  },
  { error: typeError('a JSON object') },
);

export const listOverridesSchema = z.strictObject(
  {
    state: withDefault(
      enumField(RULE_STATES),
      'active',
      'active: rules in force (default); inactive: expired or past their expiry; all.',
    ),
    limit: pageSize(OVERRIDE_LIMITS.listPage, OVERRIDE_LIMITS.defaultListPage),
    cursor: cursorField,
  },
  { error: typeError('a JSON object') },
);

/** The audit trail's NDJSON export (REST); GraphQL's overrideAudit pages it as the rule list is paged. */
export const overrideAuditSchema = z.strictObject(
  {
    limit: pageSize(OVERRIDE_LIMITS.exportRows, OVERRIDE_LIMITS.exportRows),
    cursor: cursorField,
  },
  { error: typeError('a JSON object') },
);
