import type { OverrideRule } from '../../generated/prisma/client.ts';
import { createOverride, expireOverride, updateOverride } from '../../domain/overrides/changes.ts';
import { listOverrides } from '../../domain/overrides/reads.ts';
import { inForce } from '../../domain/overrides/rule-index.ts';
import {
  OVERRIDE_LIMITS,
  createOverrideSchema,
  expireOverrideSchema,
  listOverridesSchema,
  updateOverrideSchema,
} from '../../domain/overrides/schemas.ts';
import { keyActor, viewerOf } from '../http/request-context.ts';
import {
  count,
  dateTime,
  enumOf,
  freeQuota,
  nullableDateTime,
  object,
  overrideAction,
  overridePoints,
  overrideTargetKind,
  personOf,
  str,
} from './schemas.ts';
import { FREE } from './examples.ts';
import { defineOperation } from './operation.ts';
import { from, same } from './wire.ts';

/**
 * The POST /risk_api/overrides/ family: create, list, update and expire, each the resolver of its GraphQL field
 * (createOverride, overrides, updateOverride, expireOverride). Free, bounded, every change in the audit trail
 * (docs/api.md, overrides). The audit export streams NDJSON (rest/override-audit.ts).
 */

/** A rule's fields as the answers and the audit trail word them (the trail's record has no `active`). */
export const ruleFields = {
  id: count,
  target_kind: overrideTargetKind,
  target: { type: 'string', description: 'Canonical.' },
  action: overrideAction,
  points: overridePoints,
  reason: str,
  note: str,
  author: personOf('author'),
  expires_at: { ...nullableDateTime, description: 'When it stops applying on its own; null: until expired.' },
  expired_at: { ...nullableDateTime, description: 'When someone expired it; null while not.' },
  created_at: dateTime,
};
const rule = object({
  ...ruleFields,
  active: from((r: OverrideRule) => inForce(r, Date.now()), { type: 'boolean', description: 'In force now.' }),
});

/** The answer of create, update and expire: one document schema, each operation's own `endpoint` word. */
const ruleResponse = (endpoint: string) =>
  object({
    ok: { const: true },
    endpoint: from(() => endpoint, enumOf(['overrides_create', 'overrides_update', 'overrides_expire'])),
    quota: same(freeQuota),
    rule: same(rule),
  });

const overrideListResponse = object({
  ok: { const: true },
  endpoint: { const: 'overrides_list' },
  quota: same(freeQuota),
  rules: from('items', {
    type: 'array',
    maxItems: OVERRIDE_LIMITS.listPage,
    items: rule,
    description: 'Oldest first.',
  }),
  next_cursor: { type: ['string', 'null'], description: 'Send as cursor for the next page; null on the last page.' },
});

const ruleExample = {
  id: 12,
  target_kind: 'cidr',
  target: '203.0.113.0/24',
  action: 'deny',
  points: 0,
  reason: 'card testing from this block',
  note: 'ticket 4711',
  author: { kind: 'api_key', id: 3, label: 'checkout (rk_adDTKSHH)' },
  expires_at: '2027-01-31T00:00:00.000Z',
  expired_at: null,
  created_at: '2026-11-26T07:00:00.000Z',
  active: true,
};
/** A rule as the audit trail records it, for the audit export's example. */
export const { active: _active, ...recordedRuleExample } = ruleExample;

const FAMILY = { tag: 'Overrides', response: 'OverrideRuleResponse' } as const;
const notFound = 'no rule with this id in the workspace';

export const createOverrideOperation = defineOperation({
  name: 'overrides_create',
  path: '/risk_api/overrides',
  input: createOverrideSchema,
  resolve: (input, ctx) => createOverride(ctx.services, viewerOf(ctx).workspaceId, input, keyActor(ctx), ctx.via),
  output: ruleResponse('overrides_create'),
  metering: 'free',
  status: 201,
  doc: {
    tag: FAMILY.tag,
    operationId: 'createOverride',
    summary: 'Create an override rule (free)',
    description:
      'A rule of the workspace on an IP, a CIDR block, an AS or a country: allow (its scores answer level minimal), deny (critical) ' +
      'or adjust (points added, clamped to 0-100), with a reason shown in every score it changes, an optional note and an optional ' +
      'expiry. The most specific rule in force applies (IP, then CIDR by longest prefix, then AS, then country). It applies to the ' +
      "workspace's score answers at once in this process and within a second in every other. The author is the calling key. " +
      `At most ${OVERRIDE_LIMITS.activeRules} rules in force per workspace, one per target. Recorded in the audit trail. Never counted.`,
    request: {
      schema: 'CreateOverrideRequest',
      example: {
        target: '203.0.113.0/24',
        action: 'deny',
        reason: 'card testing from this block',
        note: 'ticket 4711',
        expires_at: '2027-01-31T00:00:00Z',
      },
    },
    response: {
      schema: FAMILY.response,
      description: 'Created.',
      example: { ok: true, endpoint: 'overrides_create', quota: FREE, rule: ruleExample },
    },
    errors: ['override_exists', 'override_limit_reached'],
    errorsWhen: {
      override_exists: 'the target already has a rule in force (expire it first)',
      override_limit_reached: `the workspace has ${OVERRIDE_LIMITS.activeRules} rules in force`,
    },
  },
});

export const listOverridesOperation = defineOperation({
  name: 'overrides_list',
  path: '/risk_api/overrides/list',
  input: listOverridesSchema,
  resolve: (input, ctx) => listOverrides(ctx.prisma, viewerOf(ctx).workspaceId, input),
  output: overrideListResponse,
  metering: 'free',
  doc: {
    tag: FAMILY.tag,
    operationId: 'listOverrides',
    summary: 'List override rules (free)',
    description: `The workspace's rules, oldest first: active (default), inactive or all; limit 1-${OVERRIDE_LIMITS.listPage} (default ${OVERRIDE_LIMITS.defaultListPage}), next_cursor as cursor for the next page. Never counted.`,
    request: { schema: 'ListOverridesRequest', example: { state: 'active', limit: 50 } },
    response: {
      schema: 'OverrideListResponse',
      description: 'One page of rules.',
      example: { ok: true, endpoint: 'overrides_list', quota: FREE, rules: [ruleExample], next_cursor: null },
    },
    errors: [],
  },
});

export const updateOverrideOperation = defineOperation({
  name: 'overrides_update',
  path: '/risk_api/overrides/update',
  input: updateOverrideSchema,
  resolve: (input, ctx) => updateOverride(ctx.services, viewerOf(ctx).workspaceId, input, keyActor(ctx), ctx.via),
  output: ruleResponse('overrides_update'),
  metering: 'free',
  doc: {
    tag: FAMILY.tag,
    operationId: 'updateOverride',
    summary: "Change a rule's reason, note or expiry (free)",
    description:
      'Changes what a rule in force says (reason, note) and until when (expires_at; null removes the expiry), never what it does: ' +
      'another target, action or points is a new rule. At least one field. Recorded in the audit trail with the rule before and after. Never counted.',
    request: {
      schema: 'UpdateOverrideRequest',
      example: { id: 12, reason: 'card testing from this block (confirmed)', expires_at: null },
    },
    response: {
      schema: FAMILY.response,
      description: 'Changed.',
      example: {
        ok: true,
        endpoint: 'overrides_update',
        quota: FREE,
        rule: { ...ruleExample, reason: 'card testing from this block (confirmed)', expires_at: null },
      },
    },
    errors: ['not_found', 'override_not_active'],
    errorsWhen: { not_found: notFound, override_not_active: 'the rule was expired or is past its expiry' },
  },
});

export const expireOverrideOperation = defineOperation({
  name: 'overrides_expire',
  path: '/risk_api/overrides/expire',
  input: expireOverrideSchema,
  resolve: ({ id }, ctx) => expireOverride(ctx.services, viewerOf(ctx).workspaceId, id, keyActor(ctx), ctx.via),
  output: ruleResponse('overrides_expire'),
  metering: 'free',
  doc: {
    tag: FAMILY.tag,
    operationId: 'expireOverride',
    summary: 'Expire an override rule (free)',
    description:
      'Ends a rule in force now; it stays listed (inactive) and in the audit trail. A rule of another workspace is not found. Never counted.',
    request: { schema: 'ExpireOverrideRequest', example: { id: 12 } },
    response: {
      schema: FAMILY.response,
      description: 'Expired.',
      example: {
        ok: true,
        endpoint: 'overrides_expire',
        quota: FREE,
        rule: { ...ruleExample, expired_at: '2026-11-26T08:00:00.000Z', active: false },
      },
    },
    errors: ['not_found', 'override_not_active'],
    errorsWhen: { not_found: notFound, override_not_active: 'the rule was already expired or is past its expiry' },
  },
});
