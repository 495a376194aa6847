/**
 * Heavy GraphQL queries take turns. Each long piece of a query's work is bounded (lists complete in turns,
 * reads come in chunks), but several heavy queries in flight at once each deliver their pieces in the same
 * round of the event loop: a database answer mapped for one, a page completed for another, a tally for a
 * third. Together those held /healthz past its bound. So a query whose estimate reaches `minCost` (a tenth of
 * the budget) runs only while one of `running` places is free, waiting its turn in arrival order; cheaper
 * queries (a score, a page of reports) never wait. A caller (workspace, or client IP without a key) may have at
 * most `perCaller` heavy queries running or waiting: one more is refused at once as `rate_limited`, so one
 * account cannot fill the queue ahead of everyone else. The execution-time ceiling counts from the moment a
 * query runs, not from when it started to wait.
 */
import { GraphQLError } from 'graphql';
import { ERRORS } from '../../errors.ts';
import { QUERY_LIMITS } from './limits.ts';
import { WorkGate } from '../../platform/work-gate.ts';

export const HEAVY_READS = { minCost: QUERY_LIMITS.maxCost / 10, running: 1, perCaller: 8 };
export type HeavyReadLimits = typeof HEAVY_READS;

/** The places heavy GraphQL queries take turns for; a refusal is a GraphQL error with the limit it hit. */
export class HeavyReadGate extends WorkGate {
  constructor(limits: HeavyReadLimits = HEAVY_READS) {
    super(limits, (held) => new GraphQLError(
      `You already have ${held} heavy queries (estimated at ${limits.minCost} cost points or more) running or waiting; send this one when one of them has answered.`,
      { extensions: { code: 'rate_limited', limit: 'heavyQueriesPerCaller', maximum: limits.perCaller, http: { status: ERRORS.rate_limited.status } } },
    ));
  }
}
