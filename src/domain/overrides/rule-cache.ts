import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Hierarchy } from '../network/types.ts';
import { WorkspaceRules, type HeldRule } from './rule-index.ts';
import { TableFollower } from '../../platform/db/table-follower.ts';

/** How often a process reads the rule rows other processes changed: the bound on how late their changes apply. */
export const OVERRIDE_FOLLOW_MS = 1_000;
const PAGE_ROWS = 20_000;

type ChangedRow = Omit<HeldRule, 'workspaceId'> & { horizon: bigint; workspaceId: number | null; writtenXid: bigint };

/**
 * Every workspace's override rules, held in this process so `score` finds the one that applies with a few map
 * reads and no query (docs/decisions/0021-override-rules-held-in-each-process.md). Kept current exactly as the
 * workspace memory is (memory/ip-memory.ts): a change through this process is applied once committed, so its
 * caller's next score shows it; every process follows the table once per OVERRIDE_FOLLOW_MS
 * (platform/db/table-follower.ts); a row is kept only when newer than the version held.
 */
export class OverrideCache {
  private readonly byWorkspace = new Map<number, WorkspaceRules>();
  private readonly follower: TableFollower<ChangedRow>;

  constructor(prisma: PrismaClient, pageRows = PAGE_ROWS) {
    this.follower = new TableFollower<ChangedRow>(
      {
        page: (after, limit) => prisma.$queryRaw<ChangedRow[]>`-- prepared
          SELECT h.horizon, c.* FROM (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS horizon) h
          LEFT JOIN LATERAL (
            SELECT r."id", r."workspaceId", r."targetKind", r."target", r."action", r."points", r."reason",
                   r."expiresAt", r."expiredAt", r."revision", r."writtenXid"
            FROM "OverrideRule" r
            WHERE (r."writtenXid", r."id") > (${after[0]}::bigint, ${after[1]}::int)
            ORDER BY r."writtenXid", r."id" LIMIT ${limit}) c ON true`,
        position: (r) => (r.workspaceId === null ? null : [BigInt(r.writtenXid), r.id]),
        keep: (r) => this.apply(r as HeldRule),
      },
      pageRows,
    );
  }

  /** The rule that applies to the IP for this workspace now, or null: the score path's only call. */
  find(workspaceId: number, h: Hierarchy, nowMs = Date.now()): HeldRule | null {
    return this.byWorkspace.get(workspaceId)?.find(h, nowMs) ?? null;
  }

  /** The workspace's rules in force at `nowMs` (none: an empty list). */
  inForce(workspaceId: number, nowMs = Date.now()): HeldRule[] {
    return this.byWorkspace.get(workspaceId)?.inForce(nowMs) ?? [];
  }

  /** A rule row a committed change of this process returned. */
  apply(rule: HeldRule): void {
    let rules = this.byWorkspace.get(rule.workspaceId);
    if (!rules) this.byWorkspace.set(rule.workspaceId, (rules = new WorkspaceRules()));
    rules.keep(rule);
  }

  /** Reads the rows changed since the last catch-up (the whole table the first time). */
  catchUp(): Promise<void> {
    return this.follower.catchUp();
  }

  follow(intervalMs: number, onError: (e: unknown) => void) {
    this.follower.follow(intervalMs, onError);
  }

  stop() {
    this.follower.stop();
  }
}
