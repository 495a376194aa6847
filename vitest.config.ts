import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test files that bound the server's own CPU time run last and alone: on a 2-core machine, other test files
 * running beside them share the cores (often two hyperthreads of one core), which slows every CPU-bound step the
 * bound is about. Everything else runs in parallel first.
 */
const ALONE = ['test/reliability/graphql-event-loop.test.ts', 'test/reliability/graphql-hostile.test.ts'];

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module) builds. Node, and so every dependency
    // loaded outside Vite (Pothos, yoga), uses the CJS one; make test files use it too, or
    // the schema's types come from "another realm".
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    globalSetup: ['test/global-setup.ts'],
    // file-cpu.ts: each file's CPU time, for the profile reporter (test/profile)
    setupFiles: ['test/setup-fast-check.ts', 'test/profile/file-cpu.ts'],
    pool: 'forks',
    // Test files run in parallel, each in a process of its own with a database, Redis key prefix, ports and temp dirs
    // of its own (docs/testing.md). One more worker than cores: a file waiting on a server it spawned, a socket or a
    // database leaves a core to another, while CPU-bound files are not starved by a crowd. Vitest's own default on 2
    // cores is one file at a time. VITEST_MAX_WORKERS or --maxWorkers overrides it (decision 0056).
    maxWorkers: availableParallelism() + 1,
    // `npm run coverage`: lines and branches of src/ run in the test processes (servers a test spawns as processes of
    // their own are not counted); the summary is compared before and after a change to the suite (docs/testing.md).
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/generated/**'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'test-artifacts/coverage',
      // a test that fails on a busy machine must not cost the whole run's report: the summary says what ran
      reportOnFailure: true,
    },
    // Timeouts catch a hang, never measure speed: a test that creates a database or starts a server in its body takes
    // several times as long on a busy 2-core machine as on a quiet one, and must still pass there (docs/testing.md).
    testTimeout: 300_000,
    hookTimeout: 300_000, // server start-up (network data, database) on a 2-core machine busy with other suites
    projects: [
      {
        extends: true,
        test: { name: 'parallel', include: ['test/**/*.test.ts'], exclude: ALONE, sequence: { groupOrder: 0 } },
      },
      { extends: true, test: { name: 'alone', include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
