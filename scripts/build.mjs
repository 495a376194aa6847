// Bundles the server's TypeScript sources into dist/server/main.mjs, which `npm start` runs with
// plain node, the network data worker (src/domain/network/load-worker.ts) into
// dist/server/network-worker.mjs beside it, where load-in-worker.ts looks for it, and the operator CLI
// (src/cli/entry.ts) into dist/server/cli.mjs, which bin/risk-api.mjs runs while it is as new as the sources
// (dist/server/cli-sources.json: docs/decisions/0064-cli-bundle-and-lean-image.md). Running the
// sources through tsx instead cost seconds to ready and much RSS (tsx's loader thread and its
// transformed module copies: docs/decisions/0001-bundle-the-server-with-esbuild.md). Packages
// stay external: node loads them from node_modules.
//
// Files read at run time (prisma/migrations, package.json) are found from the package root, which
// src/platform/package-root.ts finds by walking up from its own folder, in the sources and in the bundle alike.
//
// GraphiQL's prebuilt browser bundle is copied out of @graphql-yoga/graphiql into dist/graphiql/ (what
// src/transport/graphql/graphiql.ts serves), so the runtime image needs neither that package nor the editor sources
// it depends on (monaco-editor, React: ~150 MB that no request ever reads).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const { outputFiles, metafile } = await build({
  entryPoints: {
    main: path.join(ROOT, 'src', 'start.ts'),
    'network-worker': path.join(ROOT, 'src', 'domain', 'network', 'load-worker.ts'),
    cli: path.join(ROOT, 'src', 'cli', 'entry.ts'),
  },
  outdir: path.join(ROOT, 'dist', 'server'),
  outExtension: { '.js': '.mjs' },
  // src/main.ts (run by src/start.ts) imports the server dynamically, after starting the network worker: with splitting, the server and the
  // packages it imports are a chunk of their own (dist/server/chunk-*.mjs) that node loads only then.
  splitting: true,
  chunkNames: 'chunk-[hash]',
  absWorkingDir: ROOT, // the metafile's input paths are from the root (cli-sources.json)
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked', // NODE_OPTIONS=--enable-source-maps maps stack traces back to the sources
  logLevel: 'warning',
  metafile: true,
  write: false,
});

// Each file is written beside its place and renamed into it, chunks before the entries that import them: a server
// starting while another build runs (two test runs at once) reads the old bundle or the new one, never half a file.
const entries = new Set(['main.mjs', 'network-worker.mjs', 'cli.mjs']);
const ordered = [...outputFiles].sort(
  (a, b) => Number(entries.has(path.basename(a.path))) - Number(entries.has(path.basename(b.path))),
);
for (const file of ordered) {
  mkdirSync(path.dirname(file.path), { recursive: true });
  const temp = `${file.path}.${process.pid}.tmp`;
  writeFileSync(temp, file.contents);
  renameSync(temp, file.path);
}

// What the CLI bundle was built from, as [path from the root, size, mtime]: bin/risk-api.mjs runs the bundle only while
// every source still matches (a stat each, no read), and the sources through tsx once one was edited. Written last,
// after the bundle it describes.
const sources = Object.keys(metafile.inputs)
  .filter((p) => !p.includes('node_modules'))
  .sort()
  .map((p) => {
    const s = statSync(path.join(ROOT, p));
    return [p, s.size, s.mtimeMs];
  });
writeAtomically(path.join(ROOT, 'dist', 'server', 'cli-sources.json'), JSON.stringify(sources));

// The commit built (src/platform/build-info.ts reads it where there is no .git, as in the image): SOURCE_COMMIT when
// the build is given it (the Dockerfile's build argument: its context has no .git), else the checkout's.
const commit = (() => {
  const given = process.env.SOURCE_COMMIT?.trim().toLowerCase();
  if (given && /^[0-9a-f]{12,40}$/.test(given)) return given.slice(0, 12);
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: 'pipe',
    }).trim();
  } catch {
    return 'unknown'; // no git, or not a checkout
  }
})();
writeAtomically(path.join(ROOT, 'dist', 'server', 'commit.txt'), commit);

// GraphiQL: the package's dist/ (the browser bundle, its stylesheet and the editor's workers; not the 7 MB ES-module
// copy, which no page loads) and its version, which names the assets' URLs.
const require = createRequire(import.meta.url);
const graphiqlPackage = path.dirname(require.resolve('@graphql-yoga/graphiql/package.json'));
const graphiqlOut = path.join(ROOT, 'dist', 'graphiql');
const { version } = JSON.parse(readFileSync(path.join(graphiqlPackage, 'package.json'), 'utf8'));
const builtVersion = (() => {
  try {
    return readFileSync(path.join(graphiqlOut, 'version.txt'), 'utf8');
  } catch {
    return null;
  }
})();
if (builtVersion !== version) {
  const temp = `${graphiqlOut}.${process.pid}.tmp`;
  cpSync(path.join(graphiqlPackage, 'dist'), temp, { recursive: true, filter: (src) => !src.endsWith('.es.js') });
  writeFileSync(path.join(temp, 'version.txt'), version); // written last: a folder with it is complete
  rmSync(graphiqlOut, { recursive: true, force: true });
  try {
    renameSync(temp, graphiqlOut);
  } catch {
    rmSync(temp, { recursive: true, force: true }); // another build put the same version there first
  }
}

function writeAtomically(file, text) {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}
