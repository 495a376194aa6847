import type { SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from '@prisma/driver-adapter-utils';

export type StatementObserver = (kind: 'query' | 'execute', seconds: number) => void;

/**
 * A Prisma driver adapter factory whose connections (and their transactions) report how long each statement took,
 * from the client's call to the driver's answer (on PGlite, waiting for its one connection included). Everything
 * else passes through untouched, bound to the real object (the adapters keep private fields).
 */
export function timedAdapter<F extends SqlDriverAdapterFactory>(factory: F, observe: StatementObserver): F {
  return passThrough(factory, { connect: (real) => async () => timedQueryable(await real(), observe) });
}

function timedQueryable<Q extends SqlDriverAdapter | Transaction>(queryable: Q, observe: StatementObserver): Q {
  const time =
    <A extends unknown[], R>(kind: 'query' | 'execute', run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const started = performance.now();
      try {
        return await run(...args);
      } finally {
        observe(kind, (performance.now() - started) / 1000);
      }
    };
  return passThrough(queryable, {
    queryRaw: (real) => time('query', real),
    executeRaw: (real) => time('execute', real),
    startTransaction:
      (real) =>
      async (...args: unknown[]) =>
        timedQueryable((await real(...args)) as Transaction, observe),
  });
}

// biome-ignore lint/suspicious/noExplicitAny: wraps methods of any signature; each wrapper restates its own
export type Wrappers = Record<string, (real: (...args: any[]) => any) => (...args: any[]) => unknown>;

export function passThrough<T extends object>(target: T, wrappers: Wrappers): T {
  const made = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t);
      if (typeof value !== 'function') return value;
      let fn = made.get(prop);
      if (!fn) {
        const bound = value.bind(t);
        const wrap = typeof prop === 'string' ? wrappers[prop] : undefined;
        made.set(prop, (fn = wrap ? wrap(bound) : bound));
      }
      return fn;
    },
  });
}
