/** Waiting in tests for what happens in its own time (a background round, a replica's promotion). */

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Repeats `check` every `everyMs` until it returns true, or `withinMs` have passed; returns whether it did. The
 * bound catches a hang, it does not measure speed: the default five minutes are a hundred times what a quiet machine
 * needs to see the first writes of a load, so a machine busy with other work still passes; at load average 50-70 on
 * 2 cores, single writes took 5-15 s and a one-minute bound saw 32 of 150 (docs/testing.md).
 */
export async function eventually(check: () => Promise<boolean>, withinMs = 300_000, everyMs = 100): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  do {
    if (await check().catch(() => false)) return true;
    await sleep(everyMs);
  } while (performance.now() < deadline);
  return false;
}
