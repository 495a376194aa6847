import {
  defaultFieldResolver,
  getNamedType,
  getNullableType,
  isLeafType,
  isListType,
  isObjectType,
  type GraphQLSchema,
} from 'graphql';
import type { ListSize } from './cost.ts';
import { turnOver } from '../../platform/event-loop-turn.ts';
import type { WorkBudget } from '../../platform/work-budget.ts';

/**
 * The executor completes a list's items in one synchronous pass, and a parent list's items each
 * complete their own lists in the same pass: 100 reports × 50 linked subjects, loaded by one
 * query, were some 10,000 objects completed before the event loop could answer anything else
 * (/healthz stalled for hundreds of milliseconds). Long lists are therefore handed to the executor
 * item by item, each after a check of the current turn: once a turn has run `TURN_MS`, the next
 * item waits for the event loop to go round (setImmediate: after pending I/O), and the rest follow
 * in the next turn, with every other list that ran out of turn (one clock for all long work:
 * platform/event-loop-turn.ts). A list's order and contents are unchanged; only when its items complete.
 *
 * Batching is kept whole: a request's data loaders (`batchWhenSettled`) dispatch only once none of
 * its lists is waiting for a turn, so the items released over several turns still load in one
 * batch, as in one pass (the query counts of analyst-query-count.test.ts hold).
 */

/** A request's lists waiting for a turn, and the loader dispatches held until none is. */
type RequestTurns = { waiting: number; held: Array<() => void> };
const requests = new WeakMap<object, RequestTurns>();
/** For an execution without a context object (none of the service's own): one shared record. */
const NO_CONTEXT = {};

function turnsOf(ctx: unknown): RequestTurns {
  const key = typeof ctx === 'object' && ctx !== null ? ctx : NO_CONTEXT;
  let r = requests.get(key);
  if (!r) requests.set(key, (r = { waiting: 0, held: [] }));
  return r;
}

/** Runs the held dispatches once the request's released items have run (DataLoader's own timing), unless a list waits again. */
function settle(r: RequestTurns): void {
  Promise.resolve().then(() =>
    process.nextTick(() => {
      if (r.waiting === 0) for (const dispatch of r.held.splice(0)) dispatch();
    }),
  );
}

/** DataLoader `batchScheduleFn` for one request's loaders: dispatch when none of its lists waits for a turn. */
export function batchWhenSettled(ctx: unknown): (dispatch: () => void) => void {
  const r = turnsOf(ctx);
  return (dispatch) => {
    r.held.push(dispatch);
    settle(r);
  };
}

/**
 * The items of `list`, each released after the previous one's turn check (see above). Each item is a row
 * read, charged to the request's meter (ceilings.ts) as it is released: once the request's work is ended
 * (budget spent, deadline passed, answer given), the items not yet released are refused and not completed.
 */
export function inTurns(list: unknown, ctx: unknown): unknown {
  if (!Array.isArray(list)) return list;
  const work = (ctx as { work?: WorkBudget } | null)?.work;
  if (list.length < 2) {
    work?.charge(list.length);
    return list;
  }
  const r = turnsOf(ctx);
  const check = (): Promise<void> | undefined => {
    const wait = work ? work.step(1) : turnOver();
    if (!wait) return undefined;
    r.waiting++;
    // Settled either way: a wait ended by the meter still lets the request's held loads go (and fail fast).
    return wait.finally(() => {
      if (--r.waiting === 0) settle(r);
    });
  };
  let previous: Promise<void> = Promise.resolve();
  return list.map((item) => (previous = previous.then(check)).then(() => item));
}

/** Lists of at most this many items complete in one pass (the eight dimensions, six windows). */
const SHORT_LIST = 10;

/**
 * Makes every long list of objects in `schema` complete in turns: connection pages (`edges`,
 * `nodes`) and plain lists that can hold more than SHORT_LIST items (`extensions.list`). Short
 * lists and leaves keep their resolvers (the score's fields have none, so graphql-jit compiles
 * them to property reads).
 */
export function completeLongListsInTurns(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!isListType(getNullableType(field.type)) || isLeafType(getNamedType(field.type))) continue;
      const list = (field.extensions as { list?: ListSize }).list;
      if (!type.name.endsWith('Connection') && list && 'max' in list && list.max <= SHORT_LIST) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, ctx: unknown, info) => {
        const value = resolve(source, args, ctx, info);
        return value instanceof Promise ? value.then((v) => inTurns(v, ctx)) : inTurns(value, ctx);
      };
    }
  }
  return schema;
}
