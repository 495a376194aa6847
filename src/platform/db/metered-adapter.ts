import type { SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from '@prisma/driver-adapter-utils';
import { currentWork } from '../work-budget.ts';
import { passThrough } from './timed-adapter.ts';

/**
 * A Prisma driver adapter factory whose statements are metered by the request that issued them (work-budget.ts,
 * `currentWork`): each checks the request's budget before it starts (so a statement of a request already answered,
 * timed out or over its budget is never sent) and charges one unit plus one per row it returned. Statements run
 * outside any request (background work, start-up) pass untouched. A refusal thrown here reaches the caller wrapped
 * by Prisma (its code kept, its class lost): the transports answer the request's own refusal instead (`endedBy`).
 */
export function meteredAdapter<F extends SqlDriverAdapterFactory>(factory: F): F {
  return passThrough(factory, { connect: (real) => async () => meteredQueryable(await real()) });
}

/**
 * Ending a transaction is never refused: a ROLLBACK refused after a refused read would leave the connection (on
 * PGlite, the only one) inside the transaction. PostgreSQL's adapter sends these through executeRaw.
 */
const TRANSACTION_CONTROL = /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET TRANSACTION)\b/i;

function workFor(args: unknown[]) {
  const sql = (args[0] as { sql?: unknown } | undefined)?.sql;
  return typeof sql === 'string' && TRANSACTION_CONTROL.test(sql) ? undefined : currentWork();
}

function meteredQueryable<Q extends SqlDriverAdapter | Transaction>(queryable: Q): Q {
  return passThrough(queryable, {
    queryRaw:
      (real) =>
      async (...args: unknown[]) => {
        const work = workFor(args);
        work?.check();
        const result = (await real(...args)) as { rows?: unknown[] };
        work?.charge(1 + (result.rows?.length ?? 0));
        return result;
      },
    executeRaw:
      (real) =>
      async (...args: unknown[]) => {
        const work = workFor(args);
        work?.check();
        const changed = await real(...args);
        work?.charge(1);
        return changed;
      },
    startTransaction:
      (real) =>
      async (...args: unknown[]) =>
        meteredQueryable((await real(...args)) as Transaction),
  });
}
