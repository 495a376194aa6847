/**
 * One clock for every piece of work that runs long on the event loop: work that may run longer than a
 * turn checks `turnOver()` between steps and, once the current turn has run `TURN_MS`, awaits the promise
 * it returns — the event loop goes round (setImmediate: after pending I/O, so /healthz and other requests
 * are answered) and the work goes on in the next turn. Everything that ran out of turn shares one wait and
 * one clock, so two long pieces of work cannot each take a full turn back to back.
 */
export const TURN_MS = 10;
let turnStarted = performance.now();
let nextTurn: Promise<void> | null = null;

/** Null while the current turn has time left; else the wait for the next turn. */
export function turnOver(): Promise<void> | null {
  if (performance.now() - turnStarted < TURN_MS) return null;
  return (nextTurn ??= new Promise((resolve) =>
    setImmediate(() => {
      nextTurn = null;
      turnStarted = performance.now();
      resolve();
    }),
  ));
}
