import type { ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { OverrideAudit, PrismaClient } from '../../generated/prisma/client.ts';
import { overrideAudit } from '../../domain/overrides/reads.ts';
import { workspaceDb } from '../../domain/workspace/scope.ts';
import type { Logger } from '../../platform/log.ts';

/** One audit entry as an NDJSON line. */
export function auditLine(a: OverrideAudit) {
  return {
    id: a.id,
    rule_id: a.ruleId,
    action: a.action,
    surface: a.surface,
    actor: { kind: a.actorKind, id: a.actorId, label: a.actorLabel },
    before: a.before,
    after: a.after,
    created_at: a.createdAt.toISOString(),
  };
}

/** Entries read per statement while streaming: the answer is written as it is read, never held whole. */
const AUDIT_BATCH = 500;

/**
 * A workspace's audit trail as NDJSON, oldest first, at most `limit` entries (OVERRIDE_LIMITS.exportRows), read and
 * written AUDIT_BATCH at a time: the answer of REST's POST /risk_api/overrides/audit/ and of the control plane's
 * download alike. The last entry this answer sends is found first, so X-Next-Cursor can be a header; entries of one
 * workspace get their ids in commit order (its changes take turns on its row lock), so a cursor never skips one that
 * commits later. `extraHeaders` are the surface's own (the control plane's security headers).
 */
export async function sendAuditExport(
  res: ServerResponse,
  prisma: PrismaClient,
  workspaceId: number,
  input: { limit: number; cursor?: number | null | undefined },
  opts: { requestId: string; log: Logger; extraHeaders?: Record<string, string> },
): Promise<void> {
  const last = await lastAuditId(prisma, workspaceId, input.cursor ?? null, input.limit);
  res.writeHead(200, {
    ...opts.extraHeaders,
    'content-type': 'application/x-ndjson; charset=utf-8',
    'content-disposition': 'attachment; filename="override-audit.ndjson"',
    'cache-control': 'no-store',
    'x-request-id': opts.requestId,
    ...(last.more ? { 'x-next-cursor': String(last.id) } : {}),
  });
  try {
    let cursor = input.cursor ?? null;
    for (let left = input.limit; left > 0 && last.id !== null; ) {
      const page = await overrideAudit(prisma, workspaceId, { limit: Math.min(AUDIT_BATCH, left), cursor });
      const rows = page.items.filter((a) => a.id <= last.id!);
      if (res.destroyed) return;
      if (!res.write(rows.map((a) => `${JSON.stringify(auditLine(a))}\n`).join('')))
        await Promise.race([once(res, 'drain'), once(res, 'close')]);
      left -= rows.length;
      if (rows.length < page.items.length || !page.nextCursor || rows.at(-1)!.id === last.id) break;
      cursor = Number(page.nextCursor);
    }
    res.end();
  } catch (e) {
    // Headers are gone: the only honest signal left is an aborted (incomplete) response.
    opts.log.error('override audit export failed mid-stream', { requestId: opts.requestId, err: e });
    res.destroy(e as Error);
  }
}

/** The id of the last entry an answer of `limit` entries after `cursor` sends (null: none), and whether more follow it. */
async function lastAuditId(
  prisma: PrismaClient,
  workspaceId: number,
  cursor: number | null,
  limit: number,
): Promise<{ id: number | null; more: boolean }> {
  const edge = await workspaceDb(prisma, workspaceId).overrideAudit.findMany({
    where: cursor ? { id: { gt: cursor } } : {},
    orderBy: { id: 'asc' },
    skip: limit - 1,
    take: 2,
    select: { id: true },
  });
  if (edge.length > 0) return { id: edge[0]!.id, more: edge.length === 2 };
  // fewer than `limit` entries: the answer ends with the newest
  const newest = await workspaceDb(prisma, workspaceId).overrideAudit.findFirst({
    where: cursor ? { id: { gt: cursor } } : {},
    orderBy: { id: 'desc' },
    select: { id: true },
  });
  return { id: newest?.id ?? null, more: false };
}
