import { GraphQLError, getOperationAST, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError, ERRORS } from '../../errors.ts';
import { setWork, type RequestContext } from '../http/request-context.ts';
import type { Session } from '../../domain/accounts/sessions.ts';
import { estimatedCostOf } from './limits-plugin.ts';
import { HEAVY_READS, HeavyReadGate } from './heavy-reads.ts';
import { QUERY_LIMITS } from './limits.ts';
import { runAsWork, WorkBudget, type WorkLimits } from '../../platform/work-budget.ts';

/**
 * Hard ceilings per GraphQL request, the backstop behind the cost estimate (limits-plugin.ts):
 * - work: each execution gets a meter (platform/work-budget.ts) that the resolvers charge with the rows they
 *   read and the pairs they combine; past `maxWorkUnits` the work ends and the answer is query_too_complex
 *   (limit `maxWorkUnits`), the refusal the estimate uses.
 * - time: `maxMs` after the execution arrived (waiting for a heavy place included) the work ends and the
 *   answer is `query_timeout` at once. Ending it cancels the work, not only the answer: every resolver and
 *   every long loop charges or checks the meter, so the next step of each throws and nothing keeps running.
 * - size: an answer whose JSON would exceed `maxResponseBytes` is replaced by `response_too_large`.
 *   It is measured on the result (stopping at the limit), never serialised first.
 * - turns: a heavy execution (by its estimate, or by the meter once it has charged `HEAVY_READS.minWork`)
 *   waits for one of the process's places (heavy-reads.ts) before it goes on.
 * A query's refusal is the whole answer (no partial data), with extensions.code and the ceiling. A mutation
 * runs under the same meter, deadline and turns, but its writes are never cut once started (a write answered
 * as failed while it completes would be retried and stored twice): what is ended is its selection, whose
 * fields answer the refusal in place beside the write's own result.
 * Installed after graphql-jit and the query limits, so it wraps whichever executor runs the operation
 * and knows the operation's estimate.
 */
export type Ceilings = { maxMs: number; maxResponseBytes: number; maxWorkUnits: number };
export const EXECUTION_CEILINGS: Ceilings = {
  maxMs: 10_000,
  maxResponseBytes: 4 * 1024 * 1024,
  maxWorkUnits: QUERY_LIMITS.maxWorkUnits,
};

/** One per process: /graphql and /workspace/graphql share its places. */
const heavyReads = new HeavyReadGate();

export function useExecutionCeilings(ceilings: Partial<Ceilings> = {}): Plugin {
  const limits = { ...EXECUTION_CEILINGS, ...ceilings };
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const mutation = getOperationAST(args.document, args.operationName ?? undefined)?.operation === 'mutation';
      setExecuteFn((a) => runWithin(limits, mutation, executeFn, a));
    },
  };
}

type ExecuteFn = Parameters<Parameters<NonNullable<Plugin['onExecute']>>[0]['setExecuteFn']>[0];
type Context = Partial<RequestContext> & { session?: Session };

/** Whom the heavy-query places are counted for: the workspace of the key or of the signed-in account, else the client's address. */
function callerOf(ctx: Context): string {
  if (ctx.viewer) return `workspace:${ctx.viewer.workspaceId}`;
  if (ctx.session) return `workspace:${ctx.session.account.workspaceId}`;
  return `ip:${ctx.clientIp}`;
}

async function runWithin(ceilings: Ceilings, mutation: boolean, executeFn: ExecuteFn, a: Parameters<ExecuteFn>[0]) {
  const ctx = a.contextValue as Context;
  const caller = callerOf(ctx);
  const releases: Array<() => void> = [];
  let answered = false;
  const work = requestWork(ceilings, mutation, ctx.arrivedAt, {
    heavyAt: HEAVY_READS.minWork,
    takeHeavyTurn: async (signal) => {
      const release = await heavyReads.enter(caller, signal);
      if (answered)
        release(); // granted after the answer: handed straight back, never held by finished work
      else releases.push(release);
    },
  });
  setWork(ctx, work);
  const timer = endAtDeadline(work, ceilings, mutation);
  try {
    // A mutation's writes never wait (nor are refused) for a heavy place: its selection does, when the meter finds it heavy.
    if (!mutation && estimatedCostOf(ctx) >= HEAVY_READS.minCost) {
      work.markHeavy();
      const entered = heavyReads.enter(caller, work.signal);
      const place = await Promise.race([entered, work.ended]).catch((e: unknown) => e);
      if (place instanceof GraphQLError) return { errors: [place] };
      if (typeof place !== 'function') {
        entered.then(
          (release) => release(),
          () => {},
        ); // abandoned: handed back if it was granted meanwhile
        return refusalAnswer(work.endedBy ?? place);
      }
      releases.push(place as () => void);
    }
    // Every statement the execution issues is metered by this request and refused once its work has ended
    // (platform/db/metered-adapter.ts), wherever in the resolvers it comes from.
    const execution = Promise.resolve(runAsWork(work, () => executeFn(a)));
    // A mutation's writes finish; its selection stops at the end of the work, each field answering the refusal.
    // Its statements still queued then are refused at their turn, so what is left settles at once.
    const result = mutation ? await execution : await Promise.race([execution, work.ended]);
    if (result instanceof Error) {
      execution.catch(() => {}); // ended: it stops at its next step; its outcome is no longer anyone's answer
      return refusalAnswer(result);
    }
    if (Symbol.asyncIterator in result) return result; // incremental delivery is not enabled
    if (work.endedBy) return withRefusalInPlace(result as ExecutionResult, work.endedBy);
    if (jsonSizeExceeds((result as ExecutionResult).data, ceilings.maxResponseBytes)) {
      return {
        errors: [
          refusal(
            'response_too_large',
            `The answer would be larger than ${ceilings.maxResponseBytes} bytes. Ask for smaller pages, fewer nested lists or fewer long text fields.`,
            { maxBytes: ceilings.maxResponseBytes },
          ),
        ],
      };
    }
    return result;
  } finally {
    answered = true;
    clearTimeout(timer);
    work.end(ANSWERED); // whatever is still pending (a refused query's loops) stops at its next step
    for (const release of releases) release();
  }
}

/**
 * The one meter of a request's work, whichever surface received it (/graphql here, the REST facade and the MCP
 * tools through rest/operation.ts, the export): `ceilings.maxWorkUnits` units, and a deadline `ceilings.maxMs` after
 * the request arrived (the body read, the parse and the estimate count too). Past either, the refusal is
 * query_too_complex (limit maxWorkUnits) or query_timeout. `turns` makes work found heavy take a heavy place.
 */
export function requestWork(
  ceilings: Ceilings,
  mutation: boolean,
  arrivedAt: number | undefined,
  turns: Pick<WorkLimits, 'heavyAt' | 'takeHeavyTurn'> = {},
): WorkBudget {
  return new WorkBudget({
    maxUnits: ceilings.maxWorkUnits,
    deadline: (arrivedAt ?? performance.now()) + ceilings.maxMs,
    ...turns,
    overBudget: (spent, max) =>
      new AppError(
        'query_too_complex',
        `The query did more than ${max} units of work (rows read, pairs combined) and was stopped.${afterWrites(mutation)} Ask for smaller pages, fewer subjects at once or fewer nested lists.`,
        undefined,
        { limit: 'maxWorkUnits', maximum: max, actual: spent },
      ),
    pastDeadline: () => timeout(ceilings, mutation),
  });
}

/** Ends `work` at its deadline even while none of its loops runs (all waiting on the database); clear it once answered. */
export function endAtDeadline(work: WorkBudget, ceilings: Ceilings, mutation: boolean): NodeJS.Timeout {
  return setTimeout(() => work.end(timeout(ceilings, mutation)), Math.max(0, work.deadline - performance.now()));
}

/** Why the work of an answered request ends: nobody is waiting for it any more. */
const ANSWERED = new AppError('query_timeout', 'The request was already answered.');

/**
 * What a mutation's refusal adds: a write it had started was not cut, but one not yet started when the limit was
 * reached never ran, and the answer cannot tell the client which; retrying with the same idempotency key is right
 * either way (a stored write is replayed, a missing one is written once).
 */
function afterWrites(mutation: boolean): string {
  return mutation
    ? ' A write it had started was completed and stored; one not yet started was not made: send it again with the same idempotencyKey and a smaller selection, which stores it once and reads its result.'
    : '';
}

function timeout(ceilings: Ceilings, mutation: boolean): AppError {
  return new AppError(
    'query_timeout',
    `The query ran longer than ${ceilings.maxMs} ms and was stopped.${afterWrites(mutation)} Ask for smaller pages or fewer nested lists.`,
    undefined,
    { maxMs: ceilings.maxMs },
  );
}

/**
 * A mutation's answer once its selection was cut: each field that failed because the work ended answers the
 * refusal itself (a statement refused by the meter reaches the resolver wrapped by Prisma, its class lost).
 */
function withRefusalInPlace(result: ExecutionResult, reason: Error): ExecutionResult {
  if (!result.errors?.length || !(reason instanceof AppError) || reason === ANSWERED) return result;
  return {
    ...result,
    errors: result.errors.map((e) => {
      const own = e.originalError;
      // The meter's own refusal thrown in a resolver keeps its ceiling (maxMs, the limit): the server's error
      // masking would give it only its code. Another AppError is the field's own answer.
      if (own instanceof AppError && !isCeilingRefusal(own)) return e;
      return refusalError(isCeilingRefusal(own) ? own : reason, { nodes: e.nodes, path: e.path });
    }),
  };
}

function isCeilingRefusal(e: unknown): e is AppError {
  return e instanceof AppError && (e.code === 'query_timeout' || e.code === 'query_too_complex');
}

/** A ceiling's refusal as a GraphQL error, with the ceiling it hit in its extensions, as the whole answer or in place. */
function refusalError(reason: AppError, at: { nodes?: GraphQLError['nodes']; path?: GraphQLError['path'] } = {}) {
  return new GraphQLError(reason.message, {
    ...at,
    extensions: { code: reason.code, ...reason.extra, http: { status: ERRORS[reason.code].status } },
  });
}

/** The whole answer for work that was ended: its refusal as a GraphQL error with the ceiling it hit. */
function refusalAnswer(reason: unknown): ExecutionResult {
  if (isCeilingRefusal(reason)) return { errors: [refusalError(reason)] };
  if (reason instanceof GraphQLError) return { errors: [reason] };
  throw reason;
}

function refusal(code: 'response_too_large', message: string, limit: Record<string, number>): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...limit, http: { status: ERRORS[code].status } } });
}

/**
 * Whether `value` written as JSON would take more than `max` bytes (UTF-8; escapes not counted).
 * Walks the value and stops as soon as the count passes `max`, so an oversized answer costs at
 * most `max` bytes' worth of walking and is never turned into a string. Short strings count their
 * length (their UTF-8 bytes cost more to count than they could add), long ones their bytes.
 */
export function jsonSizeExceeds(value: unknown, max: number): boolean {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') size += (v.length < 256 ? v.length : Buffer.byteLength(v)) + 2;
    else if (typeof v === 'number') size += String(v).length;
    else if (v === null || typeof v !== 'object') size += 5;
    else if (Array.isArray(v)) {
      size += 1 + v.length;
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else {
      const keys = Object.keys(v);
      size += 2;
      for (let i = 0; i < keys.length; i++) {
        size += keys[i]!.length + 4;
        stack.push((v as Record<string, unknown>)[keys[i]!]);
      }
    }
    if (size > max) return true;
  }
  return false;
}
