import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { SCORE_BATCHES, inBatchTurn } from '../../src/transport/http/score-batch-gate.ts';

/** Score batches take turns (score-batch-gate.ts): one at a time, in arrival order, and a bound per workspace. No timing. */
describe('score batches take turns', () => {
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
  const ips = (n: number) => Array.from({ length: n }, (_, i) => `192.0.2.${i + 1}`);
  /** A batch that runs until `finish` is called; `started` tells whether its work began. */
  function batch(workspaceId: number) {
    let finish!: () => void;
    const state = { started: false, finish: () => finish() };
    const done = inBatchTurn(workspaceId, ips(SCORE_BATCHES.minItems), () => {
      state.started = true;
      return new Promise<void>((r) => {
        finish = r;
      });
    });
    return { state, done };
  }

  it('runs one batch at a time, the next in arrival order, whatever the workspace', async () => {
    const a = batch(1);
    const b = batch(2);
    const c = batch(1);
    await settled(a.done);
    expect([a.state.started, b.state.started, c.state.started]).toEqual([true, false, false]);
    a.state.finish();
    await a.done;
    await settled(b.done);
    expect([b.state.started, c.state.started]).toEqual([true, false]);
    b.state.finish();
    await b.done;
    await settled(c.done);
    expect(c.state.started).toBe(true);
    c.state.finish();
    await c.done;
  });

  it('runs a batch of fewer than minItems items at once, even while a large one holds the turn', async () => {
    const large = batch(3);
    await settled(large.done);
    let ran = false;
    await inBatchTurn(3, ips(SCORE_BATCHES.minItems - 1), async () => {
      ran = true;
    });
    expect([large.state.started, ran]).toEqual([true, true]);
    large.state.finish();
    await large.done;
  });

  it("refuses a workspace's batch beyond the bound (running or waiting) with 429 rate_limited, without running it, and frees the place of a failed batch", async () => {
    const held = Array.from({ length: SCORE_BATCHES.perCaller }, () => batch(7));
    let ran = false;
    const refused = await inBatchTurn(7, ips(100), async () => {
      ran = true;
    }).catch((e: unknown) => e);
    expect(ran).toBe(false);
    expect(refused).toBeInstanceOf(AppError);
    const e = refused as AppError;
    expect([e.code, e.status]).toEqual(['rate_limited', 429]);
    expect(e.toBody()).toMatchObject({ in_flight: { maximum: SCORE_BATCHES.perCaller } });
    expect(e.headers).toMatchObject({ 'retry-after': '1' });
    // Another workspace is not refused: it waits for its turn.
    const other = batch(8);
    expect(await settled(other.done)).toBe(false);
    for (const h of held) {
      await settled(h.done);
      h.state.finish();
      await h.done;
    }
    await settled(other.done);
    expect(other.state.started).toBe(true);
    other.state.finish();
    await other.done;
    // A batch that fails releases its place.
    await expect(
      inBatchTurn(7, ips(100), async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const after = batch(7);
    await settled(after.done);
    expect(after.state.started).toBe(true);
    after.state.finish();
    await after.done;
  });
});
