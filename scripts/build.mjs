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
export const SERVER_BUNDLE = path.join(ROOT, 'dist', 'server', 'main.mjs');

export async function buildServer() {
  await build({
    entryPoints: [path.join(ROOT, 'src', 'main.ts')],
    outfile: SERVER_BUNDLE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked', // stack traces name the source files
    logLevel: 'warning',
  });
  return SERVER_BUNDLE;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildServer();
