import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** Builds dist/server/main.mjs once per test run (see test/helpers/server-entry.ts). */
export default function setup(): void {
  execFileSync(process.execPath, [path.resolve(import.meta.dirname, '../scripts/build.mjs')], { stdio: 'inherit' });
}
