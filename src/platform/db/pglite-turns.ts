import type { PGlite, Transaction } from '@electric-sql/pglite';
import { currentWork } from '../work-budget.ts';

/**
 * PGlite runs each statement in this thread. The statements of one request (a GraphQL query's
 * batched reads, each issued when the previous answer arrived, or Prisma's batch of lookups run
 * as one transaction) then ran back to back, chained by promise callbacks, and nothing else —
 * not even /healthz — was served until the last one ended. Statements now take turns: one runs at a
 * time, and the next starts in the event loop's next round, after that round's I/O, inside
 * transactions too. PGlite runs one statement at a time anyway, so this orders them without slowing them.
 *
 * A transaction takes a turn to begin and holds the connection until it ends: meanwhile only its own
 * statements get turns. Statements of other requests wait here, not in PGlite's own lock: there, every
 * statement that had queued behind a transaction ran back to back, in one round, once it committed
 * (docs/decisions/0034-embedded-statements-wait-outside-pglite-s-lock.md).
 *
 * A query waiting for its turn may belong to a request answered meanwhile (thirty aliases each issue a
 * statement at once; a timeout answers the request while most still wait): once its turn comes it checks its
 * request's budget (work-budget.ts) and is refused instead of run, so the queue holds no dead request's work and
 * the next request's statements start at once. Statements outside any request (start-up, background) and the
 * writes a mutation has started (never refused) run as before.
 */
export function statementsTakeTurns(pglite: PGlite): void {
  const { query, exec, transaction } = {
    query: pglite.query.bind(pglite),
    exec: pglite.exec.bind(pglite),
    transaction: pglite.transaction.bind(pglite),
  };
  const turns = new Turns();
  pglite.query = ((...args: Parameters<PGlite['query']>) =>
    turns.statement(false, () => {
      currentWork()?.check();
      return query(...args);
    })) as PGlite['query'];
  pglite.exec = (...args) => turns.statement(false, () => exec(...args));
  pglite.transaction = (callback) =>
    turns.transaction(() =>
      transaction((tx) =>
        callback(
          Object.assign(Object.create(tx) as Transaction, {
            query: ((...args: Parameters<Transaction['query']>) =>
              turns.statement(true, () => {
                currentWork()?.check();
                return tx.query(...args);
              })) as Transaction['query'],
            exec: (...args: Parameters<Transaction['exec']>) => turns.statement(true, () => tx.exec(...args)),
          }),
        ),
      ),
    );
}

type Waiting = { start: () => void; inTransaction: boolean };

/** The one connection's turns: one statement (or one open transaction's statements) at a time, a round apart. */
class Turns {
  private readonly waiting: Waiting[] = [];
  /** A statement started and not yet ended. */
  private running = false;
  /** A transaction began and has not ended: only its statements start. */
  private inTransaction = false;
  private scheduled = false;

  async statement<R>(inTransaction: boolean, run: () => Promise<R>): Promise<R> {
    await this.turn(inTransaction);
    try {
      return await run();
    } finally {
      this.ended();
    }
  }

  async transaction<R>(run: () => Promise<R>): Promise<R> {
    await this.turn(false);
    this.running = false;
    this.inTransaction = true;
    try {
      return await run();
    } finally {
      this.inTransaction = false;
      this.schedule();
    }
  }

  private turn(inTransaction: boolean): Promise<void> {
    return new Promise((start) => {
      this.waiting.push({ start, inTransaction });
      this.schedule();
    });
  }

  private ended(): void {
    this.running = false;
    this.schedule();
  }

  /** The next start waits for the event loop's next round (an immediate queued now runs then). */
  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => this.next());
  }

  private next(): void {
    this.scheduled = false;
    if (this.running) return; // its end schedules the next
    const i = this.inTransaction ? this.waiting.findIndex((w) => w.inTransaction) : 0;
    if (i < 0) return; // the open transaction's next statement (or its end) schedules the next
    this.running = true;
    this.waiting.splice(i, 1)[0]!.start();
  }
}
