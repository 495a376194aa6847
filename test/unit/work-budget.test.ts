import { describe, expect, it } from 'vitest';
import { WorkBudget, type WorkLimits } from '../../src/platform/work-budget.ts';
import { WorkGate } from '../../src/platform/work-gate.ts';

/** The per-request meter (platform/work-budget.ts) and the cancellable wait for a place (work-gate.ts). No timing. */
const overBudget = (spent: number, max: number) => new Error(`over ${spent}/${max}`);
const pastDeadline = () => new Error('past deadline');
const budget = (more: Partial<WorkLimits> = {}) =>
  new WorkBudget({ maxUnits: 100, deadline: Number.POSITIVE_INFINITY, overBudget, pastDeadline, ...more });
const settled = async (p: Promise<unknown>) => {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('WorkBudget', () => {
  it('counts the units charged and ends the work with the over-budget refusal once they pass the maximum', async () => {
    const work = budget();
    work.charge(60);
    work.charge(40);
    expect(work.units).toBe(100);
    expect(work.endedBy).toBeNull();
    expect(() => work.charge(1)).toThrow('over 101/100');
    // Ended for good: every later charge, check or step throws the same reason, and `ended` settles with it.
    expect(() => work.check()).toThrow('over 101/100');
    expect(() => work.step(0)).toThrow('over 101/100');
    expect((await work.ended).message).toBe('over 101/100');
    expect(work.signal.aborted).toBe(true);
  });

  it('ends the work once its deadline has passed, at the next charge', () => {
    const work = budget({ deadline: performance.now() - 1 });
    expect(() => work.charge(0)).toThrow('past deadline');
    expect(work.units).toBe(0);
  });

  it('stops a loop at its next step after the work is ended from outside (the answer was given)', async () => {
    const work = budget({ maxUnits: Number.POSITIVE_INFINITY });
    let steps = 0;
    const loop = (async () => {
      for (;;) {
        await work.step(1);
        steps++;
        if (steps % 1000 === 0) await new Promise((r) => setImmediate(r));
      }
    })();
    while (steps < 3000) await new Promise((r) => setImmediate(r));
    work.end(new Error('answered'));
    const atEnd = steps;
    await expect(loop).rejects.toThrow('answered');
    expect(steps - atEnd).toBeLessThanOrEqual(1000); // at most the steps already past their check
    expect((await work.ended).message).toBe('answered');
  });

  it('asks once for a heavy place when the charged units reach heavyAt, and every step waits for it', async () => {
    let grant!: () => void;
    const asked: AbortSignal[] = [];
    const work = budget({
      heavyAt: 10,
      takeHeavyTurn: (signal) => {
        asked.push(signal);
        return new Promise<void>((r) => (grant = r));
      },
    });
    await work.step(5); // below heavyAt: at most the event loop's turn
    expect(asked).toHaveLength(0);
    const first = work.step(5);
    const second = work.step(1);
    expect(first).toBeInstanceOf(Promise);
    expect(second).toBe(first);
    expect(asked).toHaveLength(1);
    expect(await settled(first!)).toBe(false);
    grant();
    await first;
    work.step(1);
    expect(asked).toHaveLength(1);
  });

  it('does not ask for a place for work already known heavy (it entered one before it ran)', () => {
    let asked = 0;
    const work = budget({
      heavyAt: 1,
      takeHeavyTurn: async () => {
        asked++;
      },
    });
    work.markHeavy();
    work.step(50);
    expect(asked).toBe(0);
  });

  it('ends the work with the refusal of a wait for a place that failed', async () => {
    const work = budget({
      heavyAt: 1,
      takeHeavyTurn: () => Promise.reject(new Error('too many waiting')),
    });
    await expect(work.step(1)).rejects.toThrow('too many waiting');
    expect(() => work.check()).toThrow('too many waiting');
  });
});

describe('WorkGate waits given a signal', () => {
  it('leaves the queue when the signal aborts, freeing its count for the caller, and the next waiter gets the place', async () => {
    const gate = new WorkGate({ running: 1, perCaller: 2 }, (held) => new Error(`held ${held}`));
    const release = await gate.enter('a');
    const abort = new AbortController();
    const waiting = gate.enter('b', abort.signal);
    const next = gate.enter('b');
    await expect(gate.enter('b')).rejects.toThrow('held 2');
    abort.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    expect(await settled(next)).toBe(false);
    release();
    expect(await settled(next)).toBe(true); // the abandoned wait took no place
    const again = gate.enter('b'); // its count was freed: b holds one
    expect(await settled(again)).toBe(false);
    (await next)();
    (await again)();
  });

  it('refuses at once a wait whose signal already aborted, holding nothing', async () => {
    const gate = new WorkGate({ running: 1, perCaller: 1 }, (held) => new Error(`held ${held}`));
    await expect(gate.enter('a', AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    const release = await gate.enter('a');
    release();
  });
});
