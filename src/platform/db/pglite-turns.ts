import type { PGlite, Transaction } from '@electric-sql/pglite';
import { currentWork } from '../work-budget.ts';

/**
 * PGlite runs each statement in this thread. The statements of one request (a GraphQL query's
 * batched reads, each issued when the previous answer arrived, or Prisma's batch of lookups run
 * as one transaction) then ran back to back, chained by promise callbacks, and nothing else —
 * not even /healthz — was served until the last one ended. Statements now take turns: at most
 * one starts per round of the event loop, after that round's I/O, inside transactions too
 * (PGlite holds the transaction's lock meanwhile; only other requests' I/O runs in between).
 * PGlite runs one statement at a time anyway, so this orders them without slowing them.
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
  pglite.query = (async (...args: Parameters<PGlite['query']>) => {
    await turn();
    currentWork()?.check();
    return query(...args);
  }) as PGlite['query'];
  pglite.exec = async (...args) => {
    await turn();
    return exec(...args);
  };
  pglite.transaction = (callback) =>
    transaction((tx) =>
      callback(
        Object.assign(Object.create(tx) as Transaction, {
          query: (async (...args: Parameters<Transaction['query']>) => {
            await turn();
            currentWork()?.check();
            return tx.query(...args);
          }) as Transaction['query'],
          exec: async (...args: Parameters<Transaction['exec']>) => {
            await turn();
            return tx.exec(...args);
          },
        }),
      ),
    );
}

const waiting: Array<() => void> = [];

function turn(): Promise<void> {
  return new Promise((resolve) => {
    if (waiting.push(resolve) === 1) setImmediate(next);
  });
}

/** Starts the first waiting statement; the one after it gets the next round (an immediate queued now runs then). */
function next(): void {
  waiting.shift()!();
  if (waiting.length > 0) setImmediate(next);
}
