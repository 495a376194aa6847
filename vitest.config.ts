import { defineConfig } from 'vitest/config';

/**
 * Test files that bound the server's own CPU time run last and alone: on a 2-core machine, other test files
 * running beside them share the cores (often two hyperthreads of one core), which slows every CPU-bound step the
 * bound is about. Everything else runs in parallel first.
 */
const ALONE = ['test/reliability/graphql-event-loop.test.ts'];

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module) builds. Node, and so every dependency
    // loaded outside Vite (Pothos, yoga), uses the CJS one; make test files use it too, or
    // the schema's types come from "another realm".
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-fast-check.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000, // server start-up (network data, database) on a loaded 2-core CI machine
    projects: [
      { extends: true, test: { name: 'parallel', include: ['test/**/*.test.ts'], exclude: ALONE, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'alone', include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
