import { builder } from '../builder.ts';
import { textCost, type ListSize } from '../cost.ts';
import { viewerOf } from '../../http/request-context.ts';
import {
  createOverrideOperation,
  expireOverrideOperation,
  listOverridesOperation,
  updateOverrideOperation,
} from '../../operations/overrides.ts';
import { changes, checkInput, given } from '../../../domain/validation.ts';
import type { OverrideRule, OverrideAudit } from '../../../generated/prisma/client.ts';
import { RiskLevelEnum } from './vocabularies.ts';
import type { AppliedOverride } from '../../../domain/overrides/apply.ts';
import type { ruleRecord } from '../../../domain/overrides/changes.ts';
import { overrideAudit, type Page } from '../../../domain/overrides/reads.ts';
import {
  OVERRIDE_ACTION_MEANINGS,
  OVERRIDE_LIMITS,
  RULE_STATE_MEANINGS,
  UPDATE_OVERRIDE_CLEARABLE,
  auditPageSchema,
  createOverrideSchema,
  expireOverrideSchema,
  listOverridesSchema,
  updateOverrideSchema,
} from '../../../domain/overrides/schemas.ts';
import { TARGET_KIND_MEANINGS } from '../../../domain/overrides/target.ts';
import { enumValues } from '../enum-values.ts';
import { inForce } from '../../../domain/overrides/rule-index.ts';

export const OverrideActionEnum = builder.enumType('OverrideAction', {
  description: 'What an override rule does to the overall score of the IPs it covers.',
  values: enumValues(OVERRIDE_ACTION_MEANINGS),
});
export const OverrideTargetKindEnum = builder.enumType('OverrideTargetKind', {
  description: 'What an override rule covers.',
  values: enumValues(TARGET_KIND_MEANINGS),
});
export const RuleStateEnum = builder.enumType('OverrideRuleState', {
  description: 'Which rules a list holds.',
  values: enumValues(RULE_STATE_MEANINGS),
});

/** The rule applied to a score answer: the overall score and level changed, the dimensions as published. */
export const ScoreOverrideRef = builder.objectRef<AppliedOverride>('ScoreOverride').implement({
  description:
    "The workspace's override rule that changed this score. The dimensions and their evidence are the published ones, unchanged.",
  fields: (t) => ({
    ruleId: t.exposeInt('ruleId', { description: "The rule's id." }),
    targetKind: t.expose('targetKind', { type: OverrideTargetKindEnum, description: 'What the rule covers.' }),
    target: t.exposeString('target', { description: 'The IP, block, AS (AS<n>) or country code the rule names.' }),
    action: t.expose('action', { type: OverrideActionEnum, description: 'What the rule does.' }),
    points: t.exposeInt('points', { description: 'adjust: points added (negative: removed); 0 for allow and deny.' }),
    reason: t.exposeString('reason', {
      description: "The rule's reason.",
      extensions: { cost: textCost(OVERRIDE_LIMITS.reason) },
    }),
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the rule stops applying; null: until expired.',
      resolve: (o) => o.expiresAt,
    }),
    evidenceScore: t.exposeInt('evidenceScore', {
      description: 'The overall score the published evidence gives, before the rule.',
    }),
    evidenceLevel: t.expose('evidenceLevel', { type: RiskLevelEnum, description: 'Its risk level.' }),
    explanation: t.exposeString('explanation', {
      description: 'One sentence saying which rule changed the score, from what to what.',
      extensions: { cost: textCost(OVERRIDE_LIMITS.reason + 200) },
    }),
  }),
});

const AuthorRef = builder.objectRef<{ kind: string; id: number; label: string }>('OverrideAuthor').implement({
  description: 'Who made a rule or a change: an API key or a control-plane account.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'api_key or account.' }),
    id: t.exposeInt('id', { description: "The key's or account's id." }),
    label: t.exposeString('label', { description: "The key's name and prefix, or the account's e-mail, at the time." }),
  }),
});

export const OverrideRuleRef = builder.objectRef<OverrideRule>('OverrideRule').implement({
  description: "A workspace's override rule.",
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Rule id (increasing).' }),
    targetKind: t.field({
      type: OverrideTargetKindEnum,
      description: 'What the rule covers.',
      resolve: (r) => r.targetKind as never,
    }),
    target: t.exposeString('target', { description: 'The IP, block, AS (AS<n>) or country code, canonical.' }),
    action: t.field({
      type: OverrideActionEnum,
      description: 'What the rule does.',
      resolve: (r) => r.action as never,
    }),
    points: t.exposeInt('points', { description: 'adjust: points added (negative: removed); 0 for allow and deny.' }),
    reason: t.exposeString('reason', {
      description: 'Why the rule exists.',
      extensions: { cost: textCost(OVERRIDE_LIMITS.reason) },
    }),
    note: t.exposeString('note', {
      description: 'Internal note.',
      extensions: { cost: textCost(OVERRIDE_LIMITS.note) },
    }),
    author: t.field({
      type: AuthorRef,
      description: 'Who created it.',
      resolve: (r) => ({ kind: r.authorKind, id: r.authorId, label: r.authorLabel }),
    }),
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it stops applying on its own; null: until expired.',
      resolve: (r) => r.expiresAt,
    }),
    expiredAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When someone expired it; null while not.',
      resolve: (r) => r.expiredAt,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (r) => r.createdAt }),
    active: t.boolean({ description: 'In force now.', resolve: (r) => inForce(r, Date.now()) }),
  }),
});

type RuleRecord = ReturnType<typeof ruleRecord>;
const RuleRecordRef = builder.objectRef<RuleRecord>('OverrideRuleRecord').implement({
  description: 'A rule as an audit entry recorded it, before or after the change.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Rule id.' }),
    targetKind: t.field({
      type: OverrideTargetKindEnum,
      description: 'What the rule covers.',
      resolve: (r) => r.target_kind as never,
    }),
    target: t.exposeString('target', { description: 'The target, canonical.' }),
    action: t.field({
      type: OverrideActionEnum,
      description: 'What the rule does.',
      resolve: (r) => r.action as never,
    }),
    points: t.exposeInt('points', { description: 'adjust: points added.' }),
    reason: t.exposeString('reason', { description: 'Why.', extensions: { cost: textCost(OVERRIDE_LIMITS.reason) } }),
    note: t.exposeString('note', {
      description: 'Internal note.',
      extensions: { cost: textCost(OVERRIDE_LIMITS.note) },
    }),
    author: t.field({ type: AuthorRef, description: 'Who created the rule.', resolve: (r) => r.author }),
    expiresAt: t.string({
      nullable: true,
      description: 'ISO 8601; null: until expired.',
      resolve: (r) => r.expires_at,
    }),
    expiredAt: t.string({
      nullable: true,
      description: 'ISO 8601; null while not expired.',
      resolve: (r) => r.expired_at,
    }),
    createdAt: t.string({ description: 'ISO 8601.', resolve: (r) => r.created_at }),
  }),
});

const AuditEntryRef = builder.objectRef<OverrideAudit>('OverrideAuditEntry').implement({
  description: 'One change of an override rule, as the append-only audit trail recorded it.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Entry id (increasing, in the order written).' }),
    ruleId: t.exposeInt('ruleId', { description: 'The rule changed.' }),
    action: t.exposeString('action', { description: 'create, update or expire.' }),
    surface: t.exposeString('surface', {
      description: 'Where the change came from: rest, graphql, mcp or control_plane.',
    }),
    actor: t.field({
      type: AuthorRef,
      description: 'Who made the change.',
      resolve: (a) => ({ kind: a.actorKind, id: a.actorId, label: a.actorLabel }),
    }),
    before: t.field({
      type: RuleRecordRef,
      nullable: true,
      description: 'The rule before; null for create.',
      resolve: (a) => a.before as RuleRecord | null,
    }),
    after: t.field({
      type: RuleRecordRef,
      nullable: true,
      description: 'The rule after.',
      resolve: (a) => a.after as RuleRecord | null,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When.', resolve: (a) => a.createdAt }),
  }),
});

const listSize = { max: OVERRIDE_LIMITS.listPage } satisfies ListSize; // the page size is the parent field's `first`
export const RulePageRef = builder.objectRef<Page<OverrideRule>>('OverrideRulePage').implement({
  description: 'One page of rules, oldest first.',
  fields: (t) => ({
    nodes: t.expose('items', {
      type: [OverrideRuleRef],
      description: 'The rules of the page.',
      extensions: { list: listSize },
    }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'Pass as after: for the next page; null on the last page.',
    }),
  }),
});
export const AuditPageRef = builder.objectRef<Page<OverrideAudit>>('OverrideAuditPage').implement({
  description: 'One page of the audit trail, oldest first.',
  fields: (t) => ({
    nodes: t.expose('items', {
      type: [AuditEntryRef],
      description: 'The entries of the page.',
      extensions: { list: listSize },
    }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'Pass as after: for the next page; null on the last page.',
    }),
  }),
});

export const CreateOverrideInput = builder.inputType('CreateOverrideInput', {
  description: 'A new override rule. Bounds and rules are in docs/api.md (overrides).',
  fields: (t) => ({
    target: t.string({
      required: true,
      description: 'An IP, a CIDR block, an AS number (AS64500) or a country code (NL).',
    }),
    action: t.field({ type: OverrideActionEnum, required: true, description: 'allow, deny or adjust.' }),
    points: t.int({ description: `adjust only: -${OVERRIDE_LIMITS.points} to ${OVERRIDE_LIMITS.points}, not 0.` }),
    reason: t.string({
      required: true,
      description: `Why (1 to ${OVERRIDE_LIMITS.reason} characters); shown in every score the rule changes.`,
    }),
    note: t.string({ description: `Internal note (at most ${OVERRIDE_LIMITS.note} characters).` }),
    expiresAt: t.string({
      description: 'ISO 8601 time in the future when the rule stops applying; absent: until expired.',
    }),
  }),
});

builder.mutationField('createOverride', (t) =>
  t.field({
    type: OverrideRuleRef,
    description: 'Create an override rule for the workspace (free, never counted). Recorded in the audit trail.',
    args: { input: t.arg({ type: CreateOverrideInput, required: true, description: 'The rule.' }) },
    resolve: (_root, args, ctx) =>
      createOverrideOperation.resolve(checkInput(createOverrideSchema, given(args.input)), ctx),
  }),
);

export const UpdateOverrideInput = builder.inputType('UpdateOverrideInput', {
  description:
    'What a rule says and until when; what it does (target, action, points) is never changed: that is a new rule.',
  fields: (t) => ({
    id: t.int({ required: true, description: "The rule's id." }),
    reason: t.string({
      description: `New reason (1 to ${OVERRIDE_LIMITS.reason} characters); absent or null: unchanged.`,
    }),
    note: t.string({
      description: `New internal note (at most ${OVERRIDE_LIMITS.note} characters); absent or null: unchanged.`,
    }),
    expiresAt: t.string({
      description: 'New expiry, an ISO 8601 time in the future; null removes the expiry; absent: unchanged.',
    }),
  }),
});

builder.mutationField('updateOverride', (t) =>
  t.field({
    type: OverrideRuleRef,
    description: 'Change the reason, note or expiry of an override rule in force (free). Recorded in the audit trail.',
    args: { input: t.arg({ type: UpdateOverrideInput, required: true, description: 'The rule and what changes.' }) },
    resolve: (_root, args, ctx) =>
      updateOverrideOperation.resolve(
        checkInput(updateOverrideSchema, changes(args.input, UPDATE_OVERRIDE_CLEARABLE)),
        ctx,
      ),
  }),
);

builder.mutationField('expireOverride', (t) =>
  t.field({
    type: OverrideRuleRef,
    description: 'Expire an override rule in force now (free). Recorded in the audit trail.',
    args: { id: t.arg.int({ required: true, description: "The rule's id." }) },
    resolve: (_root, args, ctx) =>
      expireOverrideOperation.resolve(checkInput(expireOverrideSchema, { id: args.id }), ctx),
  }),
);

builder.queryField('overrides', (t) =>
  t.field({
    type: RulePageRef,
    description: "The workspace's override rules, oldest first (free).",
    args: {
      state: t.arg({ type: RuleStateEnum, description: 'active (default), inactive or all.' }),
      first: t.arg.int({
        description: `Rules per page, 1-${OVERRIDE_LIMITS.listPage} (default ${OVERRIDE_LIMITS.defaultListPage}).`,
      }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
    },
    resolve: (_root, args, ctx) =>
      listOverridesOperation.resolve(
        checkInput(listOverridesSchema, given({ state: args.state, limit: args.first, cursor: args.after })),
        ctx,
      ),
  }),
);

builder.queryField('overrideAudit', (t) =>
  t.field({
    type: AuditPageRef,
    description:
      "The workspace's override audit trail, oldest first (free). POST /risk_api/overrides/audit/ exports it as NDJSON.",
    args: {
      first: t.arg.int({
        description: `Entries per page, 1-${OVERRIDE_LIMITS.listPage} (default ${OVERRIDE_LIMITS.defaultListPage}).`,
      }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
    },
    resolve: (_root, args, ctx) =>
      overrideAudit(
        ctx.prisma,
        viewerOf(ctx).workspaceId,
        checkInput(auditPageSchema, given({ limit: args.first, cursor: args.after })),
      ),
  }),
);
