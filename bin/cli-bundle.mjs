// Whether bin/risk-api.mjs may run the CLI's bundle (dist/server/cli.mjs, written by `npm run build`) instead of the
// TypeScript sources: only while every source it was built from has the size and modification time that
// dist/server/cli-sources.json records (a stat each, nothing read), so a command never runs code older than the
// sources. Without sources (the runtime image carries dist/ only) the bundle is all there is.
// docs/decisions/0064-cli-bundle-and-lean-image.md
import { existsSync, readFileSync, statSync } from 'node:fs';

/** The bundle's URL under the package `root` (a file: URL ending in /) when it is current, else null. */
export function currentBundle(root) {
  const bundle = new URL('dist/server/cli.mjs', root);
  if (!existsSync(bundle)) return null;
  if (!existsSync(new URL('src/', root))) return bundle;
  try {
    const sources = JSON.parse(readFileSync(new URL('dist/server/cli-sources.json', root), 'utf8'));
    const unchanged = sources.every(([file, size, mtimeMs]) => {
      const s = statSync(new URL(file, root));
      return s.size === size && s.mtimeMs === mtimeMs;
    });
    return unchanged ? bundle : null;
  } catch {
    return null; // no list, or a source gone: the sources decide
  }
}
