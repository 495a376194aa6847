import { builder } from '../../graphql/builder.ts';
import { OVERRIDE_LIMITS } from '../../../domain/overrides/schemas.ts';
import {
  AuditPageRef,
  CreateOverrideInput,
  OverrideRuleRef,
  RulePageRef,
  RuleStateEnum,
  UpdateOverrideInput,
} from '../../graphql/types/overrides.ts';
import { auditEntries, createRule, expireRule, listRules, updateRule } from '../override-actions.ts';
import { actingAccount, WorkspaceMutation, WorkspaceQuery } from './roots.ts';

/**
 * Override rules on /workspace/graphql: the fields of GraphQL for API keys (same names, arguments, types and errors),
 * run through override-actions.ts with the signed-in account as the author and control_plane as the surface.
 */

builder.objectFields(WorkspaceQuery, (t) => ({
  overrides: t.field({
    type: RulePageRef,
    description: "The workspace's override rules, oldest first.",
    args: {
      state: t.arg({
        type: RuleStateEnum,
        description: 'active (in force, the default), inactive (expired or past their expiry) or all.',
      }),
      first: t.arg.int({
        description: `Rules per page, 1-${OVERRIDE_LIMITS.listPage} (default ${OVERRIDE_LIMITS.defaultListPage}).`,
      }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
    },
    resolve: (_r, args, ctx) =>
      listRules(...actingAccount(ctx), { state: args.state, limit: args.first, cursor: args.after }),
  }),
  overrideAudit: t.field({
    type: AuditPageRef,
    description:
      "The workspace's override audit trail, oldest first. GET /workspace/overrides/audit.ndjson downloads it as NDJSON.",
    args: {
      first: t.arg.int({
        description: `Entries per page, 1-${OVERRIDE_LIMITS.listPage} (default ${OVERRIDE_LIMITS.defaultListPage}).`,
      }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
    },
    resolve: (_r, args, ctx) => auditEntries(...actingAccount(ctx), { limit: args.first, cursor: args.after }),
  }),
}));

builder.objectFields(WorkspaceMutation, (t) => ({
  createOverride: t.field({
    type: OverrideRuleRef,
    description:
      'Creates an override rule for the workspace, authored by the signed-in account. Recorded in the audit trail (surface control_plane).',
    args: { input: t.arg({ type: CreateOverrideInput, required: true, description: 'The rule.' }) },
    resolve: (_r, args, ctx) => createRule(...actingAccount(ctx), { ...args.input }),
  }),
  updateOverride: t.field({
    type: OverrideRuleRef,
    description:
      'Changes the reason, note or expiry of a rule in force. Recorded in the audit trail (surface control_plane).',
    args: { input: t.arg({ type: UpdateOverrideInput, required: true, description: 'The rule and what changes.' }) },
    resolve: (_r, args, ctx) => updateRule(...actingAccount(ctx), { ...args.input }),
  }),
  expireOverride: t.field({
    type: OverrideRuleRef,
    description:
      "Expires a rule in force now. Another workspace's rule id answers not_found, as an unknown one does. Recorded in the audit trail (surface control_plane).",
    args: { id: t.arg.int({ required: true, description: "The rule's id." }) },
    resolve: (_r, args, ctx) => expireRule(...actingAccount(ctx), args.id),
  }),
}));
