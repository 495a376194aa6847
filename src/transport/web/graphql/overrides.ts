import { builder } from './builder.ts';
import type { OverrideAudit, OverrideRule } from '../../../generated/prisma/client.ts';
import type { Page } from '../../../domain/overrides/reads.ts';
import type { ruleRecord } from '../../../domain/overrides/changes.ts';
import { OVERRIDE_ACTION_MEANINGS, OVERRIDE_LIMITS, RULE_STATE_MEANINGS } from '../../../domain/overrides/schemas.ts';
import { TARGET_KIND_MEANINGS } from '../../../domain/overrides/target.ts';
import { enumValues } from '../../graphql/enum-values.ts';
import { auditEntries, createRule, expireRule, listRules, updateRule } from '../override-actions.ts';
import { inForce } from '../../../domain/overrides/rule-index.ts';

/**
 * Override rules on /workspace/graphql: the fields of GraphQL for API keys (same names, arguments and errors), run
 * through override-actions.ts with the signed-in account as the author and control_plane as the surface. The types
 * are declared again only because this schema has a builder of its own (builder.ts); their values and meanings come
 * from the domain's tables.
 */

const OverrideActionEnum = builder.enumType('OverrideAction', { description: 'What an override rule does to the overall score of the IPs it covers.', values: enumValues(OVERRIDE_ACTION_MEANINGS) });
const TargetKindEnum = builder.enumType('OverrideTargetKind', { description: 'What an override rule covers.', values: enumValues(TARGET_KIND_MEANINGS) });
const RuleStateEnum = builder.enumType('OverrideRuleState', { description: 'Which rules a list holds.', values: enumValues(RULE_STATE_MEANINGS) });

type Author = { kind: string; id: number; label: string };
const AuthorRef = builder.objectRef<Author>('OverrideAuthor').implement({
  description: 'Who made a rule or a change: an API key or a control-plane account.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'api_key or account.' }),
    id: t.exposeInt('id', { description: 'The key\'s or account\'s id.' }),
    label: t.exposeString('label', { description: 'The key\'s name and prefix, or the account\'s e-mail, at the time.' }),
  }),
});

const OverrideRuleRef = builder.objectRef<OverrideRule>('OverrideRule').implement({
  description: 'A workspace\'s override rule.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Rule id (increasing).' }),
    targetKind: t.field({ type: TargetKindEnum, description: 'What the rule covers.', resolve: (r) => r.targetKind as never }),
    target: t.exposeString('target', { description: 'The IP, block, AS (AS<n>) or country code, canonical.' }),
    action: t.field({ type: OverrideActionEnum, description: 'What the rule does.', resolve: (r) => r.action as never }),
    points: t.exposeInt('points', { description: 'adjust: points added (negative: removed); 0 for allow and deny.' }),
    reason: t.exposeString('reason', { description: 'Why the rule exists; shown in every score it changes.' }),
    note: t.exposeString('note', { description: 'Internal note.' }),
    author: t.field({ type: AuthorRef, description: 'Who created it.', resolve: (r) => ({ kind: r.authorKind, id: r.authorId, label: r.authorLabel }) }),
    expiresAt: t.field({ type: 'DateTime', nullable: true, description: 'When it stops applying on its own; null: until expired.', resolve: (r) => r.expiresAt }),
    expiredAt: t.field({ type: 'DateTime', nullable: true, description: 'When someone expired it; null while not.', resolve: (r) => r.expiredAt }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (r) => r.createdAt }),
    active: t.boolean({ description: 'In force now.', resolve: (r) => inForce(r, Date.now()) }),
  }),
});

type RuleRecord = ReturnType<typeof ruleRecord>;
const RuleRecordRef = builder.objectRef<RuleRecord>('OverrideRuleRecord').implement({
  description: 'A rule as an audit entry recorded it, before or after the change.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Rule id.' }),
    targetKind: t.field({ type: TargetKindEnum, description: 'What the rule covers.', resolve: (r) => r.target_kind as never }),
    target: t.exposeString('target', { description: 'The target, canonical.' }),
    action: t.field({ type: OverrideActionEnum, description: 'What the rule does.', resolve: (r) => r.action as never }),
    points: t.exposeInt('points', { description: 'adjust: points added.' }),
    reason: t.exposeString('reason', { description: 'Why.' }),
    note: t.exposeString('note', { description: 'Internal note.' }),
    author: t.field({ type: AuthorRef, description: 'Who created the rule.', resolve: (r) => r.author }),
    expiresAt: t.string({ nullable: true, description: 'ISO 8601; null: until expired.', resolve: (r) => r.expires_at }),
    expiredAt: t.string({ nullable: true, description: 'ISO 8601; null while not expired.', resolve: (r) => r.expired_at }),
    createdAt: t.string({ description: 'ISO 8601.', resolve: (r) => r.created_at }),
  }),
});

const AuditEntryRef = builder.objectRef<OverrideAudit>('OverrideAuditEntry').implement({
  description: 'One change of an override rule, as the append-only audit trail recorded it.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Entry id (increasing, in the order written).' }),
    ruleId: t.exposeInt('ruleId', { description: 'The rule changed.' }),
    action: t.exposeString('action', { description: 'create, update or expire.' }),
    surface: t.exposeString('surface', { description: 'Where the change came from: rest, graphql, mcp or control_plane.' }),
    actor: t.field({ type: AuthorRef, description: 'Who made the change.', resolve: (a) => ({ kind: a.actorKind, id: a.actorId, label: a.actorLabel }) }),
    before: t.field({ type: RuleRecordRef, nullable: true, description: 'The rule before; null for create.', resolve: (a) => a.before as RuleRecord | null }),
    after: t.field({ type: RuleRecordRef, nullable: true, description: 'The rule after.', resolve: (a) => a.after as RuleRecord | null }),
    createdAt: t.field({ type: 'DateTime', description: 'When.', resolve: (a) => a.createdAt }),
  }),
});

const RulePageRef = builder.objectRef<Page<OverrideRule>>('OverrideRulePage').implement({
  description: 'One page of rules, oldest first.',
  fields: (t) => ({
    nodes: t.expose('items', { type: [OverrideRuleRef], description: 'The rules of the page.' }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Pass as after: for the next page; null on the last page.' }),
  }),
});
const AuditPageRef = builder.objectRef<Page<OverrideAudit>>('OverrideAuditPage').implement({
  description: 'One page of the audit trail, oldest first.',
  fields: (t) => ({
    nodes: t.expose('items', { type: [AuditEntryRef], description: 'The entries of the page.' }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Pass as after: for the next page; null on the last page.' }),
  }),
});

const CreateOverrideInput = builder.inputType('CreateOverrideInput', {
  description: 'A new override rule. Bounds and rules are in docs/api.md (overrides).',
  fields: (t) => ({
    target: t.string({ required: true, description: 'An IP, a CIDR block, an AS number (AS64500) or a country code (NL).' }),
    action: t.field({ type: OverrideActionEnum, required: true, description: 'allow, deny or adjust.' }),
    points: t.int({ description: `adjust only: -${OVERRIDE_LIMITS.points} to ${OVERRIDE_LIMITS.points}, not 0.` }),
    reason: t.string({ required: true, description: `Why (1 to ${OVERRIDE_LIMITS.reason} characters); shown in every score the rule changes.` }),
    note: t.string({ description: `Internal note (at most ${OVERRIDE_LIMITS.note} characters).` }),
    expiresAt: t.string({ description: 'ISO 8601 time in the future when the rule stops applying; absent: until expired.' }),
  }),
});

const UpdateOverrideInput = builder.inputType('UpdateOverrideInput', {
  description: 'What a rule says and until when; what it does (target, action, points) is never changed: that is a new rule.',
  fields: (t) => ({
    id: t.int({ required: true, description: 'The rule\'s id.' }),
    reason: t.string({ description: `New reason (1 to ${OVERRIDE_LIMITS.reason} characters); absent or null: unchanged.` }),
    note: t.string({ description: `New internal note (at most ${OVERRIDE_LIMITS.note} characters); absent or null: unchanged.` }),
    expiresAt: t.string({ description: 'New expiry, an ISO 8601 time in the future; null removes the expiry; absent: unchanged.' }),
  }),
});

builder.queryFields((t) => ({
  overrides: t.field({
    type: RulePageRef,
    description: 'The workspace\'s override rules, oldest first.',
    args: {
      state: t.arg({ type: RuleStateEnum, description: 'active (in force, the default), inactive (expired or past their expiry) or all.' }),
      first: t.arg.int({ description: `Rules per page, 1-${OVERRIDE_LIMITS.listPage} (default ${OVERRIDE_LIMITS.defaultListPage}).` }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
    },
    resolve: (_r, args, ctx) => listRules(ctx.deps, ctx.session.account, { state: args.state, limit: args.first, cursor: args.after }),
  }),
  overrideAudit: t.field({
    type: AuditPageRef,
    description: 'The workspace\'s override audit trail, oldest first. GET /workspace/overrides/audit.ndjson downloads it as NDJSON.',
    args: {
      first: t.arg.int({ description: `Entries per page, 1-${OVERRIDE_LIMITS.listPage} (default ${OVERRIDE_LIMITS.defaultListPage}).` }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
    },
    resolve: (_r, args, ctx) => auditEntries(ctx.deps, ctx.session.account, { limit: args.first, cursor: args.after }),
  }),
}));

builder.mutationFields((t) => ({
  createOverride: t.field({
    type: OverrideRuleRef,
    description: 'Creates an override rule for the workspace, authored by the signed-in account. Recorded in the audit trail (surface control_plane).',
    args: { input: t.arg({ type: CreateOverrideInput, required: true, description: 'The rule.' }) },
    resolve: (_r, args, ctx) => createRule(ctx.deps, ctx.session.account, { ...args.input }),
  }),
  updateOverride: t.field({
    type: OverrideRuleRef,
    description: 'Changes the reason, note or expiry of a rule in force. Recorded in the audit trail (surface control_plane).',
    args: { input: t.arg({ type: UpdateOverrideInput, required: true, description: 'The rule and what changes.' }) },
    resolve: (_r, args, ctx) => updateRule(ctx.deps, ctx.session.account, { ...args.input }),
  }),
  expireOverride: t.field({
    type: OverrideRuleRef,
    description: 'Expires a rule in force now. Another workspace\'s rule id answers not_found, as an unknown one does. Recorded in the audit trail (surface control_plane).',
    args: { id: t.arg.int({ required: true, description: 'The rule\'s id.' }) },
    resolve: (_r, args, ctx) => expireRule(ctx.deps, ctx.session.account, args.id),
  }),
}));
