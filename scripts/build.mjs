// Bundles the server's TypeScript sources into one ES module, dist/server/main.mjs, which
// `npm start` runs with plain node. Running the sources through tsx instead cost, measured on the
// bench's PostgreSQL + Redis set-up: ~2 s more to ready and ~170 MB more RSS (tsx's loader thread
// and its transformed module copies). Packages stay external: node loads them from node_modules.
//
// The bundle sits two directories below the package root, as src/db/migrate.ts does, so the paths
// that module resolves from its own location (prisma/migrations) are the same in both.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

await build({
  entryPoints: [path.join(ROOT, 'src', 'main.ts')],
  outfile: path.join(ROOT, 'dist', 'server', 'main.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked', // NODE_OPTIONS=--enable-source-maps maps stack traces back to the sources
  logLevel: 'warning',
});
