import type { CounterStore } from './types.ts';

type Timed = Exclude<keyof CounterStore, 'close'>;
const TIMED: readonly Timed[] = ['consumeIfBelow', 'peek', 'peekMany', 'hitWindow', 'claimCooldown', 'meterCall', 'recordLookups', 'recordLookupBatch', 'readActivity', 'ping'];

/**
 * The counter store with each call's duration reported (its method name is the operation). The call is issued at
 * once, in the caller's tick, so calls made together still leave in one Redis pipeline (lookups/score-call.ts).
 */
export function timedCounterStore(store: CounterStore, observe: (operation: string, seconds: number) => void): CounterStore {
  const timed = Object.create(null) as Record<string, unknown>;
  for (const name of TIMED) {
    const call = (store[name] as (...args: unknown[]) => Promise<unknown>).bind(store);
    timed[name] = (...args: unknown[]) => {
      const started = performance.now();
      const done = () => observe(name, (performance.now() - started) / 1000);
      const result = call(...args);
      result.then(done, done);
      return result;
    };
  }
  timed.close = () => store.close();
  return timed as unknown as CounterStore;
}
