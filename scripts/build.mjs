// Bundles the server's TypeScript sources into dist/server/main.mjs, which `npm start` runs with
// plain node, and the network data worker (src/domain/network/load-worker.ts) into
// dist/server/network-worker.mjs beside it, where load-in-worker.ts looks for it. Running the
// sources through tsx instead cost seconds to ready and much RSS (tsx's loader thread and its
// transformed module copies: docs/decisions/0001-bundle-the-server-with-esbuild.md). Packages
// stay external: node loads them from node_modules.
//
// Files read at run time (prisma/migrations, package.json) are found from the package root, which
// src/platform/package-root.ts finds by walking up from its own folder, in the sources and in the bundle alike.
import { build } from 'esbuild';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const { outputFiles } = await build({
  entryPoints: {
    main: path.join(ROOT, 'src', 'start.ts'),
    'network-worker': path.join(ROOT, 'src', 'domain', 'network', 'load-worker.ts'),
  },
  outdir: path.join(ROOT, 'dist', 'server'),
  outExtension: { '.js': '.mjs' },
  // src/main.ts (run by src/start.ts) imports the server dynamically, after starting the network worker: with splitting, the server and the
  // packages it imports are a chunk of their own (dist/server/chunk-*.mjs) that node loads only then.
  splitting: true,
  chunkNames: 'chunk-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked', // NODE_OPTIONS=--enable-source-maps maps stack traces back to the sources
  logLevel: 'warning',
  write: false,
});

// Each file is written beside its place and renamed into it, chunks before the entries that import them: a server
// starting while another build runs (two test runs at once) reads the old bundle or the new one, never half a file.
const entries = new Set(['main.mjs', 'network-worker.mjs']);
const ordered = [...outputFiles].sort(
  (a, b) => Number(entries.has(path.basename(a.path))) - Number(entries.has(path.basename(b.path))),
);
for (const file of ordered) {
  mkdirSync(path.dirname(file.path), { recursive: true });
  const temp = `${file.path}.${process.pid}.tmp`;
  writeFileSync(temp, file.contents);
  renameSync(temp, file.path);
}
