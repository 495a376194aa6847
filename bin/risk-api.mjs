#!/usr/bin/env node
// Entry point of `npx risk-api`: the CLI's bundle while it is as new as the sources (bin/cli-bundle.mjs), so --help
// and --version load neither tsx nor esbuild, which alone cost more than the answer; otherwise (a clone not built yet,
// or a source edited since the build) the TypeScript sources through tsx, with no build step in between.
import { currentBundle } from './cli-bundle.mjs';

const bundle = currentBundle(new URL('../', import.meta.url));
if (bundle) {
  await import(bundle.href);
} else {
  const tsx = await import('tsx/esm/api').catch(() => null);
  if (!tsx) {
    // An install without development packages (the systemd unit's) whose sources changed since its build.
    console.error(
      'error: the sources changed since `npm run build` and tsx is not installed: run npm ci && npm run build',
    );
    process.exit(1);
  }
  tsx.register();
  await import('../src/cli/entry.ts');
}
