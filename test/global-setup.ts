import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** Builds dist/server/main.mjs once per test run (see test/helpers/server-entry.ts), and when they are missing or stale
 *  the migrated database every test database is copied from (test/helpers/database-template.ts) and the network
 *  index's images (test/helpers/network.ts), so that no test file's start builds either of its own. When they are
 *  there already (a contributor's next run), only their names are checked: `npm run test:fast` starts in seconds. */
export default async function setup(): Promise<void> {
  execFileSync(process.execPath, [path.resolve(import.meta.dirname, '../scripts/build.mjs')], { stdio: 'inherit' });
  const [{ templateReady }, { ensureNetworkImages }] = await Promise.all([
    import('./helpers/database-template.ts'),
    import('./helpers/network.ts'),
  ]);
  await Promise.all([templateReady(process.env.DATABASE_URL), ensureNetworkImages()]);
}
