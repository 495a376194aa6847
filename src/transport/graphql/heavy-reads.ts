/**
 * Heavy GraphQL queries take turns. Each long piece of a query's work is bounded (lists complete in turns,
 * reads come in chunks), but several heavy queries in flight at once each deliver their pieces in the same
 * round of the event loop: a database answer mapped for one, a page completed for another, a tally for a
 * third. Together those held /healthz past its bound. So a query whose estimate reaches `minCost` (a tenth of
 * the budget) runs only while one of `running` places is free, waiting its turn in arrival order; cheaper
 * queries (a score, a page of reports) never wait. A caller (workspace, or client IP without a key) may have at
 * most `perCaller` heavy queries running or waiting: one more is refused at once as `rate_limited`, so one
 * account cannot fill the queue ahead of everyone else. A query estimated cheap that the meter finds heavy
 * (`minWork` units of rows read and pairs combined) waits for a place at its next step, like one estimated
 * heavy. The execution-time ceiling counts from the moment the execution arrived, waiting included: a query
 * still waiting at its deadline leaves the queue and is answered query_timeout, so every request is answered
 * within the ceiling.
 */
import { GraphQLError } from 'graphql';
import { ERRORS } from '../../errors.ts';
import { QUERY_LIMITS } from './limits.ts';
import { WorkGate } from '../../platform/work-gate.ts';

export const HEAVY_READS = {
  minCost: QUERY_LIMITS.maxCost / 10,
  /** Units of metered work (ceilings.ts) past which a query estimated cheap turns out heavy and takes a place too. */
  minWork: QUERY_LIMITS.maxWorkUnits / 20,
  running: 1,
  perCaller: 8,
};
export type HeavyReadLimits = typeof HEAVY_READS;

/** The places heavy GraphQL queries take turns for; a refusal is a GraphQL error with the limit it hit. */
export class HeavyReadGate extends WorkGate {
  constructor(limits: Omit<HeavyReadLimits, 'minWork'> = HEAVY_READS) {
    super(
      limits,
      (held) =>
        new GraphQLError(
          `You already have ${held} heavy queries (estimated at ${limits.minCost} cost points or more) running or waiting; send this one when one of them has answered.`,
          {
            extensions: {
              code: 'rate_limited',
              limit: 'heavyQueriesPerCaller',
              maximum: limits.perCaller,
              http: { status: ERRORS.rate_limited.status },
            },
          },
        ),
    );
  }
}
