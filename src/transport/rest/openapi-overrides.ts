import { enumOf, count, dateTime, object, person } from '../operations/schemas.ts';
import { ruleFields } from '../operations/overrides.ts';

/** A rule as the audit trail records it (domain/overrides/changes.ts ruleRecord): the rule's fields but `active`. */
const recorded = object(ruleFields, { nullable: true });

/** One line of the override audit export (POST /risk_api/overrides/audit/). */
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
