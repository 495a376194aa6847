import { OVERRIDE_LIMITS, overrideAuditSchema } from '../../domain/overrides/schemas.ts';
import { sendAuditExport } from '../http/override-audit-export.ts';
import { viewerOf } from '../http/request-context.ts';
import { wireInput } from './input.ts';
import { recordedRuleExample as recorded, ruleFields } from './overrides.ts';
import { bodySchema, count, dateTime, enumOf, object, person } from './schemas.ts';
import { defineStream } from './stream.ts';

/** A rule as the audit trail records it (domain/overrides/changes.ts ruleRecord): the rule's fields but `active`. */
const recordedRule = object(ruleFields, { nullable: true });

/** One line of the override audit export. */
const overrideAuditRecord = object({
  id: { ...count, description: 'Entry id, increasing in the order written.' },
  rule_id: count,
  action: enumOf(['create', 'update', 'expire'], 'The change.'),
  surface: enumOf(['rest', 'graphql', 'mcp', 'control_plane'], 'Where it came from.'),
  actor: person,
  before: { ...recordedRule, description: 'The rule before the change; null for create.' },
  after: { ...recordedRule, description: 'The rule after the change.' },
  created_at: dateTime,
});

const overrideAuditExample = {
  id: 31,
  rule_id: 12,
  action: 'expire',
  surface: 'rest',
  actor: { kind: 'api_key', id: 3, label: 'checkout (rk_adDTKSHH)' },
  before: recorded,
  after: { ...recorded, expired_at: '2026-11-26T08:00:00.000Z' },
  created_at: '2026-11-26T08:00:00.000Z',
};

/** POST /risk_api/overrides/audit/: the workspace's audit trail as NDJSON (the control plane's download answers alike). */
export const overrideAudit = defineStream({
  path: '/risk_api/overrides/audit',
  read: (raw) => wireInput(overrideAuditSchema, raw),
  write: (input, ctx, out) =>
    sendAuditExport(out.res, ctx.prisma, viewerOf(ctx).workspaceId, input, { requestId: ctx.requestId, log: out.log }),
  doc: {
    tag: 'Overrides',
    post: { operationId: 'exportOverrideAudit', summary: 'Export the override audit trail as NDJSON (free)' },
    description:
      "Every change of the workspace's rules (create, update, expire), oldest first, one OverrideAuditRecord per line: who, when, " +
      `from which surface, the rule before and after. At most limit entries (1-${OVERRIDE_LIMITS.exportRows}, default ${OVERRIDE_LIMITS.exportRows}); ` +
      'X-Next-Cursor, when present, is the cursor of the next request. The trail is append-only. Never counted.',
    // A body whose every field is optional says so with an empty `required` list (zod leaves it out).
    request: {
      schema: 'OverrideAuditRequest',
      jsonSchema: { required: [], ...bodySchema(overrideAuditSchema) },
      example: { limit: 1000 },
    },
    response: {
      description: 'The entries, one per line.',
      content: { 'application/x-ndjson': { schema: 'OverrideAuditRecord', example: overrideAuditExample } },
    },
    schemas: { OverrideAuditRecord: overrideAuditRecord },
  },
});
