import type { CounterStore } from './types.ts';

type Timed = Exclude<keyof CounterStore, 'close'>;
const TIMED: readonly Timed[] = [
  'consumeIfBelow',
  'peek',
  'peekMany',
  'hitWindow',
  'claimCooldown',
  'meterCall',
  'recordLookups',
  'recordLookupBatch',
  'readActivity',
  'seedCounter',
  'ping',
];

/**
 * The counter store with each call's duration reported (its method name is the operation), and whether it failed
 * (a quota store that is down fails every call: the alert on it). The call is issued at once, in the caller's tick,
 * so calls made together still leave in one Redis pipeline (lookups/score-call.ts).
 */
export function timedCounterStore(
  store: CounterStore,
  observe: (operation: string, seconds: number, failed: boolean) => void,
): CounterStore {
  const timed = Object.create(null) as Record<string, unknown>;
  for (const name of TIMED) {
    const call = (store[name] as (...args: unknown[]) => Promise<unknown>).bind(store);
    timed[name] = (...args: unknown[]) => {
      const started = performance.now();
      const done = (failed: boolean) => observe(name, (performance.now() - started) / 1000, failed);
      const result = call(...args);
      result.then(
        () => done(false),
        () => done(true),
      );
      return result;
    };
  }
  timed.close = () => store.close();
  return timed as unknown as CounterStore;
}
