import { describe, expect, it } from 'vitest';
import { BackgroundRounds, inBackground } from '../../src/platform/background-round.ts';
import { currentWork, runAsWork, WorkBudget } from '../../src/platform/work-budget.ts';

/** A request's meter, ended at once by the test as an answered request's is. */
function requestMeter() {
  return new WorkBudget({
    maxUnits: 1_000,
    deadline: performance.now() + 60_000,
    overBudget: () => new Error('over budget'),
    pastDeadline: () => new Error('past deadline'),
  });
}

/** Rounds that end when the test says so, so what runs when can be watched. */
function controlledRounds(onError: (e: unknown) => void = () => {}) {
  const seen = { started: 0, meters: [] as Array<WorkBudget | undefined> };
  const finish: Array<(e?: Error) => void> = [];
  const rounds = new BackgroundRounds(
    () =>
      new Promise<void>((resolve, reject) => {
        seen.started++;
        seen.meters.push(currentWork());
        finish.push((e) => (e ? reject(e) : resolve()));
      }),
    onError,
  );
  return { seen, finish, rounds };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('background rounds', () => {
  it('runs one round at a time, and exactly one more when asked (once or many times) while one ran', async () => {
    const { seen, finish, rounds } = controlledRounds();
    const first = rounds.run();
    rounds.wake();
    rounds.wake();
    const second = rounds.run();
    await settle();
    expect(seen.started).toBe(1);
    finish[0]!();
    await settle();
    expect(seen.started).toBe(2);
    finish[1]!();
    await Promise.all([first, second]);
    expect(seen.started).toBe(2);
    // Nothing asked meanwhile: one round.
    const third = rounds.run();
    await settle();
    finish[2]!();
    await third;
    expect(seen.started).toBe(3);
  });

  it("runs outside the work meter of the request that asked, so ending that request's work refuses none of it", async () => {
    const { seen, finish, rounds } = controlledRounds();
    const work = requestMeter();
    const run = runAsWork(work, () => rounds.run());
    work.end(new Error('answered'));
    await settle();
    expect(seen.meters).toEqual([undefined]);
    finish[0]!();
    await run;
    // The same for one-off background work (a batch's statement, a flush).
    const inside = await runAsWork(work, () => inBackground(async () => currentWork()));
    expect(inside).toBeUndefined();
  });

  it("tells a woken round's failure to onError, and the next wake runs again", async () => {
    const errors: unknown[] = [];
    const { seen, finish, rounds } = controlledRounds((e) => errors.push(e));
    rounds.wake();
    await settle();
    finish[0]!(new Error('SMTP down'));
    await settle();
    expect(errors.map(String)).toEqual(['Error: SMTP down']);
    rounds.wake();
    await settle();
    expect(seen.started).toBe(2);
    finish[1]!();
  });

  it('stop waits for the running round, drops the one asked for, and starts no more on wake', async () => {
    const { seen, finish, rounds } = controlledRounds();
    rounds.wake();
    rounds.wake(); // one more asked for
    await settle();
    let stopped = false;
    const stopping = rounds.stop().then(() => {
      stopped = true;
    });
    await settle();
    expect(stopped).toBe(false);
    finish[0]!();
    await stopping;
    rounds.wake();
    await settle();
    expect(seen.started).toBe(1);
  });
});
