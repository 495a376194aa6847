import { OVERRIDE_LIMITS } from '../../domain/overrides/schemas.ts';
import { count, person, dateTime, enumOf, freeQuota, nullableDateTime, object, overrideAction as action, overridePoints as points, overrideTargetKind as targetKind, str } from './openapi-schemas.ts';

/** JSON Schemas of the override answers (wire names); the score answer's `override` object is with the score's (openapi-schemas.ts). */
const ruleFields = {
  id: count, target_kind: targetKind, target: { type: 'string', description: 'Canonical.' }, action, points, reason: str, note: str, author: person,
  expires_at: { ...nullableDateTime, description: 'When it stops applying on its own; null: until expired.' },
  expired_at: { ...nullableDateTime, description: 'When someone expired it; null while not.' },
  created_at: dateTime,
};
const rule = object({ ...ruleFields, active: { type: 'boolean', description: 'In force now.' } });

export const overrideRuleResponse = object({ ok: { const: true }, endpoint: enumOf(['overrides_create', 'overrides_update', 'overrides_expire']), quota: freeQuota, rule });

export const overrideListResponse = object({
  ok: { const: true }, endpoint: { const: 'overrides_list' }, quota: freeQuota,
  rules: { type: 'array', maxItems: OVERRIDE_LIMITS.listPage, items: rule, description: 'Oldest first.' },
  next_cursor: { type: ['string', 'null'], description: 'Send as cursor for the next page; null on the last page.' },
});

/** A rule as the audit trail records it (domain/overrides/changes.ts ruleRecord): the rule's fields but `active`. */
const recorded = object(ruleFields, { nullable: true });

export const overrideAuditRecord = object({
  id: { ...count, description: 'Entry id, increasing in the order written.' },
  rule_id: count,
  action: enumOf(['create', 'update', 'expire'], 'The change.'),
  surface: enumOf(['rest', 'graphql', 'mcp', 'control_plane'], 'Where it came from.'),
  actor: person,
  before: { ...recorded, description: 'The rule before the change; null for create.' },
  after: { ...recorded, description: 'The rule after the change.' },
  created_at: dateTime,
});
