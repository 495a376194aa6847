import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module) builds. Node, and so every dependency
    // loaded outside Vite (Pothos, yoga), uses the CJS one; make test files use it too, or
    // the schema's types come from "another realm".
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-fast-check.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000, // server start-up (network data, database) on a loaded 2-core CI machine
  },
});
