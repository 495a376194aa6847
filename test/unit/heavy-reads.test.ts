import { describe, expect, it } from 'vitest';
import { GraphQLError } from 'graphql';
import { HeavyReadGate } from '../../src/transport/graphql/heavy-reads.ts';

/** The places heavy GraphQL queries take turns for (heavy-reads.ts): order, hand-over and the per-caller bound. No timing. */
describe('HeavyReadGate', () => {
  const limits = { minCost: 10, running: 2, perCaller: 3 };
  const settled = async <T>(p: Promise<T>) => {
    let done = false;
    void p.then(
      () => {
        done = true;
      },
      () => {
        done = true;
      },
    );
    await new Promise((r) => setImmediate(r));
    return done;
  };

  it('runs up to `running` at once; the others wait in arrival order and each release hands its place to the next', async () => {
    const gate = new HeavyReadGate(limits);
    const order: string[] = [];
    const enter = (name: string, caller: string) =>
      gate.enter(caller).then((release) => {
        order.push(name);
        return release;
      });
    const a = enter('a', 'w1');
    const b = enter('b', 'w2');
    const c = enter('c', 'w3');
    const d = enter('d', 'w1');
    expect(await settled(a)).toBe(true);
    expect(await settled(b)).toBe(true);
    expect(await settled(c)).toBe(false);
    (await b)();
    expect(await settled(c)).toBe(true);
    expect(await settled(d)).toBe(false);
    (await b)(); // a second release of the same place changes nothing
    expect(await settled(d)).toBe(false);
    (await a)();
    expect(await settled(d)).toBe(true);
    expect(order).toEqual(['a', 'b', 'c', 'd']);
    (await c)();
    (await d)();
    // All places free again: two enter at once.
    const e = gate.enter('w9');
    const f = gate.enter('w9');
    expect([await settled(e), await settled(f)]).toEqual([true, true]);
  });

  it("refuses a caller's query beyond perCaller (running or waiting) with rate_limited, and takes it again once one is released", async () => {
    const gate = new HeavyReadGate(limits);
    const held = [gate.enter('w1'), gate.enter('w1'), gate.enter('w1')];
    const refused = await gate.enter('w1').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GraphQLError);
    expect((refused as GraphQLError).extensions).toMatchObject({
      code: 'rate_limited',
      limit: 'heavyQueriesPerCaller',
      maximum: 3,
      http: { status: 429 },
    });
    // Another caller is not held back by w1's count: it waits for a place like anyone.
    const other = gate.enter('w2');
    expect(await settled(other)).toBe(false);
    (await held[0]!)();
    expect(await settled(other)).toBe(false); // the freed place went to w1's third, which came first
    expect(await settled(held[2]!)).toBe(true);
    const again = gate.enter('w1');
    (await held[1]!)();
    expect(await settled(other)).toBe(true);
    expect(await settled(again)).toBe(false);
  });
});
