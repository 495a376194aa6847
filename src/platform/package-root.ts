import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The package root (the folder of package.json), found by walking up from this module's own folder:
 * src/platform/ in the sources, dist/server/ in the bundle `npm start` runs. Files the service reads at
 * run time (prisma/migrations, package.json) are found from here, whichever of the two is running.
 */
function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PACKAGE_ROOT = findRoot(import.meta.dirname);
