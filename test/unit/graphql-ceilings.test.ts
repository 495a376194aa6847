import { describe, expect, it } from 'vitest';
import { GraphQLInt, GraphQLList, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { jsonSizeExceeds, useExecutionCeilings } from '../../src/transport/graphql/ceilings.ts';
import { checkWork } from '../../src/transport/http/request-context.ts';
import type { WorkBudget } from '../../src/platform/work-budget.ts';

/**
 * The per-request ceilings on execution time and answer size, on both executors the /graphql
 * server uses (graphql-js, and graphql-jit for the operations it compiles), over a schema whose
 * resolvers the test controls. No timing is asserted: the order of events is (the answer comes
 * while a resolver is still pending; work reached after the deadline never starts).
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function harness(jit: boolean, maxMs = 50) {
  const seen = {
    slowFinished: false,
    itemsStarted: 0,
    writes: 0,
    listServed: null as Promise<void> | null,
    grindSteps: 0,
    stepsAtAnswer: -1,
    grindStopped: null as Promise<unknown> | null,
  };
  /** A resolver whose work depends on the data: it steps through units until the meter ends it. */
  const grind = (ctx: { work: WorkBudget }, units: number) => {
    const loop = (async () => {
      for (;;) {
        await ctx.work.step(units);
        seen.grindSteps++;
      }
    })();
    seen.grindStopped = loop.catch((e: unknown) => e);
    return loop;
  };
  const Written = new GraphQLObjectType({
    name: 'Written',
    fields: {
      id: { type: GraphQLInt },
      grind: { type: GraphQLInt, resolve: (_v, _a, ctx) => grind(ctx, 100) },
    },
  });
  const Item = new GraphQLObjectType({
    name: 'Item',
    fields: {
      id: {
        type: GraphQLInt,
        resolve: (v, _a, ctx) => {
          checkWork(ctx);
          seen.itemsStarted++;
          return v;
        },
      },
    },
  });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: {
        slow: {
          type: GraphQLString,
          resolve: async () => {
            await sleep(1_000);
            seen.slowFinished = true;
            return 'late';
          },
        },
        items: {
          type: new GraphQLList(Item),
          resolve: () => {
            const items = sleep(200).then(() => [1, 2, 3]);
            seen.listServed = items.then(() => sleep(20)).then(() => {});
            return items;
          },
        },
        grind: {
          type: GraphQLInt,
          args: { units: { type: GraphQLInt } },
          resolve: (_r, a, ctx) => grind(ctx, a.units),
        },
        big: {
          type: GraphQLString,
          args: { n: { type: GraphQLInt } },
          resolve: (_r, args: { n: number }) => 'x'.repeat(args.n),
        },
      },
    }),
    mutation: new GraphQLObjectType({
      name: 'Mutation',
      fields: {
        write: {
          type: GraphQLString,
          resolve: async () => {
            await sleep(200);
            seen.writes++;
            return 'stored';
          },
        },
        writeThenGrind: {
          type: Written,
          resolve: () => {
            seen.writes++;
            return { id: 7 };
          },
        },
      },
    }),
  });
  const yoga = createYoga({
    schema,
    logging: false,
    maskedErrors: false,
    plugins: [
      useGraphQlJit({}, { enableIf: () => jit }),
      useExecutionCeilings({ maxMs, maxResponseBytes: 1_000, maxWorkUnits: 5_000 }),
      {
        onExecute: () => ({
          onExecuteDone: () => {
            seen.stepsAtAnswer = seen.grindSteps;
          },
        }),
      },
    ],
  });
  const ask = async (query: string) => {
    const res = await yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  return { seen, ask };
}

describe.each([
  ['graphql-js', false],
  ['graphql-jit', true],
])('execution ceilings (%s)', (_name, jit) => {
  it('answers query_timeout at the deadline, while a resolver is still running', async () => {
    const { seen, ask } = harness(jit);
    const r = await ask('{ slow }');
    expect(seen.slowFinished).toBe(false);
    expect(r.status).toBe(503);
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors).toEqual([
      { message: expect.stringContaining('longer than 50 ms'), extensions: { code: 'query_timeout', maxMs: 50 } },
    ]);
  });

  it('starts no resolver that checks the deadline after it has passed', async () => {
    const { seen, ask } = harness(jit);
    const r = await ask('{ items { id } }');
    expect(r.body.errors?.[0]?.extensions?.code).toBe('query_timeout');
    await seen.listServed; // the list arrives after the deadline; its items' resolvers then refuse to start
    expect(seen.itemsStarted).toBe(0);
  });

  it('refuses an answer over the size ceiling with response_too_large, and passes one under it', async () => {
    const { ask } = harness(jit);
    const large = await ask('{ big(n: 2000) }');
    expect(large.status).toBe(422);
    expect(large.body).toEqual({
      errors: [
        {
          message: expect.stringContaining('larger than 1000 bytes'),
          extensions: { code: 'response_too_large', maxBytes: 1_000 },
        },
      ],
    });
    const small = await ask('{ big(n: 500) }');
    expect(small.body).toEqual({ data: { big: 'x'.repeat(500) } });
  });

  it('lets a mutation finish past the deadline: a write answered as failed would be retried and stored twice', async () => {
    const { seen, ask } = harness(jit);
    const r = await ask('mutation { write }');
    expect(r.body).toEqual({ data: { write: 'stored' } });
    expect(seen.writes).toBe(1);
  });
});

describe.each([
  ['graphql-js', false],
  ['graphql-jit', true],
])('the meter (%s)', (_name, jit) => {
  it('ends a query whose work passes the budget with query_too_complex (maxWorkUnits), and its loop stops', async () => {
    const { seen, ask } = harness(jit, 10_000);
    const r = await ask('{ grind(units: 10) }');
    expect(r.status).toBe(400);
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors).toEqual([
      {
        message: expect.stringContaining('more than 5000 units of work'),
        extensions: { code: 'query_too_complex', limit: 'maxWorkUnits', maximum: 5_000, actual: 5_010 },
      },
    ]);
    expect(seen.grindSteps).toBe(500);
    expect(String(await seen.grindStopped)).toContain('units of work');
  });

  it('cancels the work at the deadline, not only the answer: no step runs after the timeout is answered', async () => {
    const { seen, ask } = harness(jit);
    const r = await ask('{ grind(units: 0) }');
    expect(r.body.errors?.[0]?.extensions?.code).toBe('query_timeout');
    expect(String(await seen.grindStopped)).toContain('longer than 50 ms');
    expect(seen.grindSteps).toBe(seen.stepsAtAnswer);
  });

  it("keeps a mutation's write and answers its selection's refusal in place", async () => {
    const { seen, ask } = harness(jit, 10_000);
    const r = await ask('mutation { writeThenGrind { id grind } }');
    expect(seen.writes).toBe(1);
    expect(r.body.data).toEqual({ writeThenGrind: { id: 7, grind: null } });
    expect(r.body.errors).toEqual([
      expect.objectContaining({
        path: ['writeThenGrind', 'grind'],
        message: expect.stringContaining('units of work'),
        // The ceiling it hit, as a query's refusal carries it (the integration test checks maxMs through the real stack).
        extensions: expect.objectContaining({ code: 'query_too_complex', limit: 'maxWorkUnits', maximum: 5_000 }),
      }),
    ]);
  });
});

describe('jsonSizeExceeds', () => {
  it('measures about what JSON.stringify would write, without writing it (long texts in UTF-8 bytes)', () => {
    const values = [
      {
        data: {
          reports: {
            nodes: Array.from({ length: 50 }, (_, i) => ({
              id: `UmVwb3J0OjE${i}`,
              databaseId: i,
              title: 'é'.repeat(300 + i),
              tags: ['a', 'b'],
              ok: i % 2 === 0,
              gone: null,
            })),
          },
        },
      },
      ['x'.repeat(10_000)],
      { a: 1.5, b: -2, c: [[], {}, [null]] },
    ];
    for (const v of values) {
      const bytes = Buffer.byteLength(JSON.stringify(v));
      expect(jsonSizeExceeds(v, Math.floor(bytes * 0.95))).toBe(true);
      expect(jsonSizeExceeds(v, Math.ceil(bytes * 1.05) + 10)).toBe(false);
    }
  });
});
