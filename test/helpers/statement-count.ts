import { AsyncLocalStorage } from 'node:async_hooks';
import type { Server } from 'node:http';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';

/**
 * Every SQL statement any part of the service sends while serving the requests it is told to watch,
 * on either backend: counted where the drivers take them (node-postgres' Client#query, PGlite's query, exec
 * and transaction), and attributed to a request by the async context the request's handling runs in, so
 * the service's own timers (catch-ups, key last-used flushes, publication refreshes) never count.
 * Install it BEFORE the server opens its database: the embedded database binds PGlite's methods when opened.
 */
export function installStatementCounter() {
  const context = new AsyncLocalStorage<string[]>();
  const restores: Array<() => void> = [];
  const count = (proto: object, name: string) => {
    const target = proto as Record<string, (...args: unknown[]) => unknown>;
    const original = target[name]!;
    target[name] = function (this: unknown, ...args: unknown[]) {
      const first = args[0] as string | { text?: string } | undefined;
      context.getStore()?.push(typeof first === 'string' ? first : (first?.text ?? `(${name})`));
      return original.apply(this, args);
    };
    restores.push(() => {
      target[name] = original;
    });
  };
  count(pg.Client.prototype, 'query');
  for (const name of ['query', 'exec', 'transaction']) count(PGlite.prototype, name);
  let watching: string[] | null = null;
  return {
    /** From now on each request `server` handles runs in a context of its own, and its statements are recorded while `record` runs. */
    watch(server: Server) {
      const handlers = server.listeners('request') as Array<(...args: unknown[]) => void>;
      server.removeAllListeners('request');
      server.on('request', (...args: unknown[]) => {
        const sink = watching;
        const run = () => {
          for (const h of handlers) h.apply(server, args);
        };
        return sink ? context.run(sink, run) : run();
      });
    },
    /** The statements sent for the requests started while `work` runs. */
    async record(work: () => Promise<void>): Promise<string[]> {
      const statements: string[] = [];
      watching = statements;
      try {
        await work();
      } finally {
        watching = null;
      }
      return statements;
    },
    restore() {
      for (const r of restores.splice(0)) r();
    },
  };
}
