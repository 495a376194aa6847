import path from 'node:path';

/**
 * The server as `npm start` runs it: the bundle of src/main.ts that scripts/build.mjs writes.
 * test/global-setup.ts rebuilds it from the sources before every test run, so tests that start
 * server processes never run a stale build.
 */
export const SERVER_ENTRY = path.resolve(import.meta.dirname, '../../dist/server/main.mjs');
