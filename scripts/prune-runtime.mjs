// Removes from an installed node_modules the files of runtime packages that the service never reads: run by the
// Dockerfile's runtime stage right after its `npm ci --omit=dev --omit=optional`, in the same RUN, so that no image
// layer keeps them (docs/operations.md#container, docs/decisions/0064-cli-bundle-and-lean-image.md).
//
// Each rule names a package folder and a test of a file's name there: what it removes, and why nothing loads it.
// test/unit/container-files.test.ts checks that no file the network loader names is removed, and
// test/integration/container.test.ts starts the server and runs the CLI on what is left, on both backends.
//
//   npm run prune:runtime [-- DIR]     (DIR: the folder holding node_modules; default the current one)
import { readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PRUNE_RULES = [
  {
    // The client's query compiler ships for five databases in two sizes, each as CommonJS and as an ES module,
    // with source maps and an edge-runtime build. The generated client (provider postgresql, over PGlite or
    // node-postgres) loads the fast PostgreSQL one only; on Node, @prisma/client/runtime/client is client.js.
    dir: '@prisma/client/runtime',
    remove: (name) =>
      name.endsWith('.map') ||
      name.startsWith('wasm-compiler-edge.') ||
      (name.startsWith('query_compiler_') && !name.startsWith('query_compiler_fast_bg.postgresql.')),
  },
  {
    // The same AS ranges in the other encodings: the loader reads asn-ipv4-num.csv and asn-ipv6.csv
    // (src/domain/network/load.ts).
    dir: '@ip-location-db/asn',
    remove: (name) => name === 'asn-ipv4.csv' || name === 'asn-ipv6-num.csv',
  },
];

/** Removes what the rules name under `modules` (a node_modules folder); returns the bytes freed. */
export function pruneRuntime(modules) {
  let freed = 0;
  for (const rule of PRUNE_RULES) {
    const dir = path.join(modules, rule.dir);
    for (const name of readdirSync(dir)) {
      if (!rule.remove(name)) continue;
      const file = path.join(dir, name);
      freed += statSync(file).size;
      rmSync(file);
    }
  }
  return freed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const modules = path.resolve(process.argv[2] ?? '.', 'node_modules');
  const freed = pruneRuntime(modules);
  console.log(`prune:runtime: removed ${(freed / 1e6).toFixed(1)} MB of files no part of the service reads`);
}
