import type { IncomingMessage, ServerResponse } from 'node:http';
import { defineOperation } from './operation.ts';
import { apiKeyHeaders, requireApiKey, verifiedViewer } from '../http/api-key.ts';
import { readJsonObject } from '../http/body.ts';
import { snakeToCamelKeys } from '../../domain/validation.ts';
import { restInput } from './input.ts';
import { overrideAuditSchema } from '../../domain/overrides/schemas.ts';
import type { ApiDeps } from '../http/request-context.ts';
import { sendAuditExport } from '../http/override-audit-export.ts';

/**
 * The POST /risk_api/overrides/ family: create, list, update and expire run the GraphQL fields as fixed operations (one
 * resolver per rule, one validation); the audit export streams NDJSON directly, as /risk_api/export/ does.
 */
const RULE_FIELDS = 'id targetKind target action points reason note author { kind id label } expiresAt expiredAt createdAt active';
const FREE = { counted: false, reason: 'free_endpoint' } as const;

export const createOverrideOperation = defineOperation('overrides_create', /* GraphQL */ `
  mutation CreateOverride($input: CreateOverrideInput!) { createOverride(input: $input) { ${RULE_FIELDS} } }`);
export const expireOverrideOperation = defineOperation('overrides_expire', /* GraphQL */ `
  mutation ExpireOverride($id: Int!) { expireOverride(id: $id) { ${RULE_FIELDS} } }`);
export const updateOverrideOperation = defineOperation('overrides_update', /* GraphQL */ `
  mutation UpdateOverride($input: UpdateOverrideInput!) { updateOverride(input: $input) { ${RULE_FIELDS} } }`);
export const listOverridesOperation = defineOperation('overrides_list', /* GraphQL */ `
  query ListOverrides($state: OverrideRuleState, $first: Int, $after: String) {
    overrides(state: $state, first: $first, after: $after) { nodes { ${RULE_FIELDS} } nextCursor }
  }`);

type RuleData = {
  id: number; targetKind: string; target: string; action: string; points: number; reason: string; note: string;
  author: { kind: string; id: number; label: string }; expiresAt: string | null; expiredAt: string | null; createdAt: string; active: boolean;
};

/** A rule in wire names, as every override answer words it. */
function wireRule(r: RuleData) {
  return {
    id: r.id, target_kind: r.targetKind, target: r.target, action: r.action, points: r.points, reason: r.reason, note: r.note,
    author: r.author, expires_at: r.expiresAt, expired_at: r.expiredAt, created_at: r.createdAt, active: r.active,
  };
}

export function shapeCreateOverride(data: { createOverride: RuleData }) {
  return { body: { ok: true, endpoint: 'overrides_create', quota: FREE, rule: wireRule(data.createOverride) }, replayed: false };
}

export function shapeExpireOverride(data: { expireOverride: RuleData }) {
  return { body: { ok: true, endpoint: 'overrides_expire', quota: FREE, rule: wireRule(data.expireOverride) }, replayed: false };
}

export function shapeUpdateOverride(data: { updateOverride: RuleData }) {
  return { body: { ok: true, endpoint: 'overrides_update', quota: FREE, rule: wireRule(data.updateOverride) }, replayed: false };
}

export function shapeListOverrides(data: { overrides: { nodes: RuleData[]; nextCursor: string | null } }) {
  return { body: { ok: true, endpoint: 'overrides_list', quota: FREE, rules: data.overrides.nodes.map(wireRule), next_cursor: data.overrides.nextCursor }, replayed: false };
}

/**
 * POST /risk_api/overrides/audit/: the workspace's audit trail as NDJSON (http/override-audit-export.ts, which the
 * control plane's download also answers with).
 */
export async function handleOverrideAudit(req: IncomingMessage, res: ServerResponse, requestId: string, deps: ApiDeps): Promise<void> {
  const viewer = await verifiedViewer(deps.verifier, req, requireApiKey(...apiKeyHeaders(req)));
  const input = restInput(overrideAuditSchema, snakeToCamelKeys(await readJsonObject(req, deps.config.maxBodyBytes)));
  await sendAuditExport(res, deps.services.prisma, viewer.workspaceId, input, { requestId, log: deps.log });
}
