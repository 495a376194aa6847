import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from './package-root.ts';

/** What is running: package.json's version and the git commit (`risk-api --version`, the risk_api_build_info
 *  metric): the checkout's, or where there is no .git (the image) the one `npm run build` recorded. */
export type BuildInfo = { version: string; commit: string };

let cached: BuildInfo | undefined;

export function buildInfo(): BuildInfo {
  cached ??= {
    version: (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version,
    commit: gitCommit(PACKAGE_ROOT) ?? builtCommit(PACKAGE_ROOT) ?? 'unknown',
  };
  return cached;
}

const read = (file: string) => {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
};

/** The commit scripts/build.mjs wrote beside the bundle (the Dockerfile passes it as SOURCE_COMMIT). */
function builtCommit(root: string): string | null {
  const commit = read(path.join(root, 'dist', 'server', 'commit.txt'));
  return commit && /^[0-9a-f]{12}$/.test(commit) ? commit : null;
}

/**
 * The checkout's commit (12 hex digits) read from .git's files, without running git (it may not be installed, and
 * this runs at every start): HEAD, the branch it names (loose or packed), in a worktree through its commondir.
 * Null outside a checkout (an image built from a copy of the sources).
 */
export function gitCommit(root: string): string | null {
  let gitDir = path.join(root, '.git');
  const pointer = read(gitDir); // a worktree or submodule: .git is a file naming the real directory
  if (pointer?.startsWith('gitdir:')) gitDir = path.resolve(root, pointer.slice('gitdir:'.length).trim());
  const head = read(path.join(gitDir, 'HEAD'));
  if (!head) return null;
  if (/^[0-9a-f]{40}$/.test(head)) return head.slice(0, 12);
  const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
  if (!ref) return null;
  const common = read(path.join(gitDir, 'commondir'));
  const dirs = [gitDir, ...(common ? [path.resolve(gitDir, common)] : [])];
  for (const dir of dirs) {
    const loose = read(path.join(dir, ref));
    if (loose && /^[0-9a-f]{40}$/.test(loose)) return loose.slice(0, 12);
    const packed = read(path.join(dir, 'packed-refs'))
      ?.split('\n')
      .find((l) => l.endsWith(` ${ref}`));
    if (packed) return packed.slice(0, 12);
  }
  return null;
}
