import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Hierarchy } from '../network/types.ts';
import { WorkspaceRules, type HeldRule } from './rule-index.ts';

/** How often a process reads the rule rows other processes changed: the bound on how late their changes apply. */
export const OVERRIDE_FOLLOW_MS = 1_000;
const PAGE_ROWS = 20_000;

type ChangedRow = Omit<HeldRule, 'workspaceId'> & { horizon: bigint; workspaceId: number | null; writtenXid: bigint };

/**
 * Every workspace's override rules, held in this process so `score` finds the one that applies with a few map
 * reads and no query (docs/decisions/0021-override-rules-held-in-each-process.md). Kept current exactly as the
 * workspace memory is (memory/ip-memory.ts): a change through this process is applied once committed, so its
 * caller's next score shows it; every process follows the table once per OVERRIDE_FOLLOW_MS from the rows of
 * transactions still running when it last looked (the snapshot's xmin), so no commit is skipped; a row is kept
 * only when newer than the version held. While the database is unreachable the copy keeps what it holds.
 */
export class OverrideCache {
  private readonly byWorkspace = new Map<number, WorkspaceRules>();
  private horizon = 0n;
  private reading: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly prisma: PrismaClient, private readonly pageRows = PAGE_ROWS) {}

  /** The rule that applies to the IP for this workspace now, or null: the score path's only call. */
  find(workspaceId: number, h: Hierarchy, nowMs = Date.now()): HeldRule | null {
    return this.byWorkspace.get(workspaceId)?.find(h, nowMs) ?? null;
  }

  /** A rule row a committed change of this process returned. */
  apply(rule: HeldRule): void {
    let rules = this.byWorkspace.get(rule.workspaceId);
    if (!rules) this.byWorkspace.set(rule.workspaceId, (rules = new WorkspaceRules()));
    rules.keep(rule);
  }

  /** Reads the rows changed since the last catch-up (the whole table the first time); concurrent calls share one read. */
  catchUp(): Promise<void> {
    this.reading ??= this.readChanges().finally(() => { this.reading = null; });
    return this.reading;
  }

  follow(intervalMs: number, onError: (e: unknown) => void) {
    this.timer = setInterval(() => { this.catchUp().catch(onError); }, intervalMs);
    this.timer.unref();
  }

  stop() { if (this.timer) clearInterval(this.timer); }

  private async readChanges(): Promise<void> {
    let after: [bigint, number] = [this.horizon, 0];
    let next: bigint | null = null;
    for (;;) {
      const rows = await this.prisma.$queryRaw<ChangedRow[]>`-- prepared
        SELECT h.horizon, c.* FROM (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS horizon) h
        LEFT JOIN LATERAL (
          SELECT r."id", r."workspaceId", r."targetKind", r."target", r."action", r."points", r."reason",
                 r."expiresAt", r."expiredAt", r."revision", r."writtenXid"
          FROM "OverrideRule" r
          WHERE (r."writtenXid", r."id") > (${after[0]}::bigint, ${after[1]}::int)
          ORDER BY r."writtenXid", r."id" LIMIT ${this.pageRows}) c ON true`;
      next ??= BigInt(rows[0]!.horizon);
      for (const r of rows) if (r.workspaceId !== null) this.apply(r as HeldRule);
      const last = rows.at(-1)!;
      if (rows.length < this.pageRows || last.workspaceId === null) break;
      after = [BigInt(last.writtenXid), last.id];
    }
    if (next > this.horizon) this.horizon = next;
  }
}
