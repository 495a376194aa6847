import type { IncomingMessage, ServerResponse } from 'node:http';
import { defineOperation } from './operation.ts';
import { apiKeyHeaders, requireApiKey, verifiedViewer } from '../http/api-key.ts';
import { readJsonObject } from '../http/body.ts';
import { snakeToCamelKeys } from '../../domain/validation.ts';
import { restInput } from './input.ts';
import { overrideAuditSchema } from '../../domain/overrides/schemas.ts';
import { overrideAudit } from '../../domain/overrides/reads.ts';
import type { ApiDeps } from '../http/request-context.ts';
import { once } from 'node:events';
import type { OverrideAudit, PrismaClient } from '../../generated/prisma/client.ts';
import { workspaceDb } from '../../domain/workspace/scope.ts';

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

/** One audit entry as an NDJSON line. */
export function auditLine(a: OverrideAudit) {
  return {
    id: a.id, rule_id: a.ruleId, action: a.action, surface: a.surface, actor: { kind: a.actorKind, id: a.actorId, label: a.actorLabel },
    before: a.before, after: a.after, created_at: a.createdAt.toISOString(),
  };
}

/** Entries read per statement while streaming: the answer is written as it is read, never held whole. */
const AUDIT_BATCH = 500;

/**
 * POST /risk_api/overrides/audit/: the workspace's audit trail as NDJSON, oldest first, at most `limit` entries
 * (OVERRIDE_LIMITS.exportRows), read and written AUDIT_BATCH at a time. The last entry this answer sends is found
 * first, so X-Next-Cursor can be a header; entries of one workspace get their ids in commit order (its changes
 * take turns on its row lock), so a cursor never skips one that commits later.
 */
export async function handleOverrideAudit(req: IncomingMessage, res: ServerResponse, requestId: string, deps: ApiDeps): Promise<void> {
  const viewer = await verifiedViewer(deps.verifier, req, requireApiKey(...apiKeyHeaders(req)));
  const input = restInput(overrideAuditSchema, snakeToCamelKeys(await readJsonObject(req, deps.config.maxBodyBytes)));
  const prisma = deps.services.prisma;
  const last = await lastAuditId(prisma, viewer.workspaceId, input.cursor ?? null, input.limit);
  res.writeHead(200, {
    'content-type': 'application/x-ndjson; charset=utf-8',
    'content-disposition': 'attachment; filename="override-audit.ndjson"',
    'cache-control': 'no-store',
    'x-request-id': requestId,
    ...(last.more ? { 'x-next-cursor': String(last.id) } : {}),
  });
  try {
    let cursor = input.cursor ?? null;
    for (let left = input.limit; left > 0 && last.id !== null;) {
      const page = await overrideAudit(prisma, viewer.workspaceId, { limit: Math.min(AUDIT_BATCH, left), cursor });
      const rows = page.items.filter((a) => a.id <= last.id!);
      if (res.destroyed) return;
      if (!res.write(rows.map((a) => `${JSON.stringify(auditLine(a))}\n`).join(''))) await Promise.race([once(res, 'drain'), once(res, 'close')]);
      left -= rows.length;
      if (rows.length < page.items.length || !page.nextCursor || rows.at(-1)!.id === last.id) break;
      cursor = Number(page.nextCursor);
    }
    res.end();
  } catch (e) {
    // Headers are gone: the only honest signal left is an aborted (incomplete) response.
    deps.log.error('override audit export failed mid-stream', { requestId, err: e });
    res.destroy(e as Error);
  }
}

/** The id of the last entry an answer of `limit` entries after `cursor` sends (null: none), and whether more follow it. */
async function lastAuditId(prisma: PrismaClient, workspaceId: number, cursor: number | null, limit: number): Promise<{ id: number | null; more: boolean }> {
  const edge = await workspaceDb(prisma, workspaceId).overrideAudit.findMany({
    where: cursor ? { id: { gt: cursor } } : {}, orderBy: { id: 'asc' }, skip: limit - 1, take: 2, select: { id: true },
  });
  if (edge.length > 0) return { id: edge[0]!.id, more: edge.length === 2 };
  // fewer than `limit` entries: the answer ends with the newest
  const newest = await workspaceDb(prisma, workspaceId).overrideAudit.findFirst({ where: cursor ? { id: { gt: cursor } } : {}, orderBy: { id: 'desc' }, select: { id: true } });
  return { id: newest?.id ?? null, more: false };
}
