import type { PrismaClient, OverrideRule } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';
import type { OverrideCache } from './rule-cache.ts';
import { inForce, inForceWhere, type HeldRule } from './rule-index.ts';
import { OVERRIDE_LIMITS, type CreateOverrideInput, type UpdateOverrideInput } from './schemas.ts';

/** Who made a change, as the caller was verified (an API key, or a signed-in account in the control plane). */
export type Actor = { kind: 'api_key' | 'account'; id: number; label: string };
/** Where a change came from, recorded in the audit trail. */
export type ChangeSurface = 'rest' | 'graphql' | 'mcp' | 'control_plane';
export type OverrideDeps = { prisma: PrismaClient; overrides: Pick<OverrideCache, 'apply'> };

type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/** A rule as the audit trail records it before and after a change (what it did, by whom, until when). */
export function ruleRecord(r: OverrideRule) {
  return {
    id: r.id,
    target_kind: r.targetKind,
    target: r.target,
    action: r.action,
    points: r.points,
    reason: r.reason,
    note: r.note,
    author: { kind: r.authorKind, id: r.authorId, label: r.authorLabel },
    expires_at: r.expiresAt?.toISOString() ?? null,
    expired_at: r.expiredAt?.toISOString() ?? null,
    created_at: r.createdAt.toISOString(),
  };
}

const held = (r: OverrideRule): HeldRule => ({
  id: r.id,
  workspaceId: r.workspaceId,
  targetKind: r.targetKind as HeldRule['targetKind'],
  target: r.target,
  action: r.action as HeldRule['action'],
  points: r.points,
  reason: r.reason,
  expiresAt: r.expiresAt,
  expiredAt: r.expiredAt,
  revision: r.revision,
});

/**
 * Changes of one workspace's rules take turns (its row locked): the cap and "one rule per target" hold under
 * concurrency. FOR NO KEY UPDATE, not FOR UPDATE: the workspace's reports and ratings check their foreign key with
 * FOR KEY SHARE, which this lock lets through, so a rule change never stalls the write path.
 */
async function lockWorkspace(tx: Tx, workspaceId: number): Promise<bigint> {
  const [row] = await tx.$queryRaw<Array<{ xid: bigint }>>`
    SELECT pg_current_xact_id()::text::bigint AS xid FROM "Workspace" WHERE "id" = ${workspaceId} FOR NO KEY UPDATE`;
  if (!row) throw new AppError('not_found', 'The workspace no longer exists.');
  return BigInt(row.xid);
}

/**
 * Creates a rule and its audit row in one transaction. Refused, changing nothing, when the workspace has
 * OVERRIDE_LIMITS.activeRules in force or the target already has a rule in force (expire it first: a rule's
 * history stays one row per decision).
 */
export async function createOverride(
  deps: OverrideDeps,
  workspaceId: number,
  input: CreateOverrideInput,
  actor: Actor,
  surface: ChangeSurface,
): Promise<OverrideRule> {
  const rule = await deps.prisma.$transaction(async (tx) => {
    const xid = await lockWorkspace(tx, workspaceId);
    const now = new Date();
    const existing = await tx.overrideRule.findFirst({
      where: { workspaceId, ...inForceWhere(now), target: input.target.key },
      select: { id: true },
    });
    if (existing) {
      throw new AppError(
        'override_exists',
        `Rule ${existing.id} is already in force on ${input.target.key}; expire it first.`,
        [{ field: 'target', message: `already has rule ${existing.id} in force` }],
      );
    }
    const active = await tx.overrideRule.count({ where: { workspaceId, ...inForceWhere(now) } });
    if (active >= OVERRIDE_LIMITS.activeRules) {
      throw new AppError(
        'override_limit_reached',
        `The workspace has ${active} rules in force, the most it may hold (${OVERRIDE_LIMITS.activeRules}); expire some first.`,
      );
    }
    const created = await tx.overrideRule.create({
      data: {
        workspaceId,
        targetKind: input.target.kind,
        target: input.target.key,
        action: input.action,
        points: input.points,
        reason: input.reason,
        note: input.note,
        expiresAt: input.expiresAt,
        authorKind: actor.kind,
        authorId: actor.id,
        authorLabel: actor.label,
        writtenXid: xid,
      },
    });
    await audit(tx, created, 'create', surface, actor, null);
    return created;
  });
  deps.overrides.apply(held(rule));
  return rule;
}

/** A rule of the workspace that is in force now, locked for the change; not found for another workspace's, as for one that never existed. */
async function ruleInForce(tx: Tx, workspaceId: number, id: number): Promise<OverrideRule> {
  const rule = await tx.overrideRule.findFirst({ where: { id, workspaceId } });
  if (!rule)
    throw new AppError('not_found', `No override rule ${id} in this workspace.`, [
      { field: 'id', message: 'no such rule' },
    ]);
  if (!inForce(held(rule), Date.now())) {
    throw new AppError(
      'override_not_active',
      `Rule ${id} is no longer in force (${rule.expiredAt ? 'expired' : 'past its expiry'}).`,
      [{ field: 'id', message: 'not in force' }],
    );
  }
  return rule;
}

/** Ends a rule in force now, with its audit row. */
export async function expireOverride(
  deps: OverrideDeps,
  workspaceId: number,
  id: number,
  actor: Actor,
  surface: ChangeSurface,
): Promise<OverrideRule> {
  return change(deps, workspaceId, id, actor, surface, 'expire', () => ({ expiredAt: new Date() }));
}

/** Changes a rule's reason, note or expiry (never what it does), with its audit row. */
export async function updateOverride(
  deps: OverrideDeps,
  workspaceId: number,
  input: UpdateOverrideInput,
  actor: Actor,
  surface: ChangeSurface,
): Promise<OverrideRule> {
  const { id, ...fields } = input;
  return change(deps, workspaceId, id, actor, surface, 'update', () => fields);
}

async function change(
  deps: OverrideDeps,
  workspaceId: number,
  id: number,
  actor: Actor,
  surface: ChangeSurface,
  action: 'expire' | 'update',
  data: () => { expiredAt?: Date; reason?: string; note?: string; expiresAt?: Date | null },
): Promise<OverrideRule> {
  const rule = await deps.prisma.$transaction(async (tx) => {
    const xid = await lockWorkspace(tx, workspaceId);
    const before = await ruleInForce(tx, workspaceId, id);
    const after = await tx.overrideRule.update({
      where: { id },
      data: { ...data(), revision: { increment: 1 }, writtenXid: xid },
    });
    await audit(tx, after, action, surface, actor, before);
    return after;
  });
  deps.overrides.apply(held(rule));
  return rule;
}

async function audit(
  tx: Tx,
  after: OverrideRule,
  action: 'create' | 'expire' | 'update',
  surface: ChangeSurface,
  actor: Actor,
  before: OverrideRule | null,
) {
  await tx.overrideAudit.create({
    data: {
      workspaceId: after.workspaceId,
      ruleId: after.id,
      action,
      surface,
      actorKind: actor.kind,
      actorId: actor.id,
      actorLabel: actor.label,
      before: before ? ruleRecord(before) : undefined,
      after: ruleRecord(after),
    },
  });
}
