import { detachedFromWork } from '../work-budget.ts';
/** A row's place in the order a table is followed in: its writing transaction's id, then its own id. */
export type Position = readonly [writtenXid: bigint, id: number];

/** What one followed table gives the follower. */
export type FollowedTable<Row> = {
  /**
   * Up to `limit` rows after `after` in (writtenXid, id) order, each carrying `horizon`: the xmin of the statement's
   * snapshot (the oldest transaction then running). A page with no row is one row with no position (a LEFT JOIN
   * LATERAL keeps the horizon).
   */
  page(after: Position, limit: number): Promise<Array<Row & { horizon: bigint | string }>>;
  /** The row's position; null for the empty page's placeholder row. */
  position(row: Row): Position | null;
  /** Keeps a changed row (only when newer than the version held: rows may arrive twice, in any order). */
  keep(row: Row): void;
};

/**
 * Keeps a process's copy of a table current without missing a commit: each catch-up reads the rows written by
 * transactions that had not finished when the previous one looked (their ids at or above the horizon, the snapshot's
 * xmin), so a commit that lands late is still read. Concurrent catch-ups share one read; `follow` repeats it on a
 * timer until `stop`. While the database is unreachable the copy keeps what it holds.
 */
export class TableFollower<Row> {
  /** Rows written by transactions with an id at or above this one may not have been read yet. */
  private horizon = 0n;
  private reading: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly table: FollowedTable<Row>,
    private readonly pageRows: number,
  ) {}

  /** Reads the rows changed since the last catch-up (the whole table the first time); concurrent calls share a read. */
  catchUp(): Promise<void> {
    // Shared by every caller: not metered or refused as the work of the request that happened to start it.
    this.reading ??= detachedFromWork(() => this.readChanges()).finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  follow(intervalMs: number, onError: (e: unknown) => void): void {
    this.stop();
    this.timer = setInterval(() => {
      this.catchUp().catch(onError);
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async readChanges(): Promise<void> {
    // Keyset from the horizon on; the horizon of the next read is the xmin of this read's FIRST statement (any later
    // commit has an id at or above it).
    let after: Position = [this.horizon, 0];
    let next: bigint | null = null;
    for (;;) {
      const rows = await this.table.page(after, this.pageRows);
      next ??= BigInt(rows[0]!.horizon);
      let last: Position | null = null;
      for (const r of rows) {
        last = this.table.position(r);
        if (last) this.table.keep(r);
      }
      if (rows.length < this.pageRows || !last) break;
      after = last;
    }
    if (next > this.horizon) this.horizon = next;
  }
}
