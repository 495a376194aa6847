import { GraphQLError, getOperationAST, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { ERRORS } from '../../errors.ts';
import { setDeadline, type RequestContext } from '../http/request-context.ts';
import type { Session } from '../../domain/accounts/sessions.ts';
import { estimatedCostOf } from './limits-plugin.ts';
import { HEAVY_READS, HeavyReadGate } from './heavy-reads.ts';

/**
 * Hard ceilings per GraphQL request, the backstop behind the cost estimate (limits-plugin.ts):
 * - time: a query still running `maxMs` after it started is answered `query_timeout` at once, and
 *   the resolvers it has not reached yet refuse to start (viewerOf and loadersOf check the
 *   deadline), so a long walk stops issuing database reads. Mutations are not cut: a write
 *   answered as failed while it completes would be retried and stored twice.
 * - size: an answer whose JSON would exceed `maxResponseBytes` is replaced by `response_too_large`.
 *   It is measured on the result (stopping at the limit), never serialised first.
 * - turns: a heavy query (by its estimate) first waits for one of the process's places (heavy-reads.ts),
 *   and its time starts when it runs.
 * Either refusal is the whole answer (no partial data), with extensions.code and the ceiling.
 * Installed after graphql-jit and the query limits, so it wraps whichever executor runs the operation
 * and knows the operation's estimate.
 */
export const EXECUTION_CEILINGS = {
  maxMs: 10_000,
  maxResponseBytes: 4 * 1024 * 1024,
};
export type Ceilings = typeof EXECUTION_CEILINGS;

const TIMED_OUT = Symbol('timed out');
/** One per process: /graphql and /workspace/graphql share its places. */
const heavyReads = new HeavyReadGate();

export function useExecutionCeilings(ceilings: Ceilings = EXECUTION_CEILINGS): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const timed = getOperationAST(args.document, args.operationName ?? undefined)?.operation === 'query';
      setExecuteFn(async (a) => {
        if (!timed || estimatedCostOf(a.contextValue as object) < HEAVY_READS.minCost) return runWithin(ceilings, timed, executeFn, a);
        let release: () => void;
        try {
          release = await heavyReads.enter(callerOf(a.contextValue as Partial<RequestContext>));
        } catch (e) {
          if (e instanceof GraphQLError) return { errors: [e] };
          throw e;
        }
        try {
          return await runWithin(ceilings, timed, executeFn, a);
        } finally {
          release();
        }
      });
    },
  };
}

/** Whom the heavy-query places are counted for: the workspace of the key or of the signed-in account, else the client's address. */
function callerOf(ctx: Partial<RequestContext> & { session?: Session }): string {
  if (ctx.viewer) return `workspace:${ctx.viewer.workspaceId}`;
  if (ctx.session) return `workspace:${ctx.session.account.workspaceId}`;
  return `ip:${ctx.clientIp}`;
}

type ExecuteFn = Parameters<Parameters<NonNullable<Plugin['onExecute']>>[0]['setExecuteFn']>[0];

async function runWithin(ceilings: Ceilings, timed: boolean, executeFn: ExecuteFn, a: Parameters<ExecuteFn>[0]) {
  const deadline = performance.now() + ceilings.maxMs;
  if (timed) setDeadline(a.contextValue as object, deadline);
  const execution = Promise.resolve(executeFn(a));
  let timer: NodeJS.Timeout | undefined;
  const result = timed
    ? await Promise.race([execution, new Promise<typeof TIMED_OUT>((resolve) => { timer = setTimeout(resolve, ceilings.maxMs, TIMED_OUT); })])
    : await execution;
  clearTimeout(timer);
  if (result === TIMED_OUT || (timed && performance.now() > deadline)) {
    execution.catch(() => {}); // it winds down on its own; its outcome is no longer anyone's answer
    return { errors: [refusal('query_timeout', `The query ran longer than ${ceilings.maxMs} ms and was stopped. Ask for smaller pages or fewer nested lists.`, { maxMs: ceilings.maxMs })] };
  }
  if (Symbol.asyncIterator in result) return result; // incremental delivery is not enabled
  if (jsonSizeExceeds((result as ExecutionResult).data, ceilings.maxResponseBytes)) {
    return { errors: [refusal('response_too_large', `The answer would be larger than ${ceilings.maxResponseBytes} bytes. Ask for smaller pages, fewer nested lists or fewer long text fields.`, { maxBytes: ceilings.maxResponseBytes })] };
  }
  return result;
}

function refusal(code: 'query_timeout' | 'response_too_large', message: string, limit: Record<string, number>): GraphQLError {
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
