#!/usr/bin/env node
// Entry point of `npx risk-api`: the CLI's bundle while it is as new as the sources (bin/cli-bundle.mjs), so --help
// and --version load neither tsx nor esbuild, which alone cost more than the answer; otherwise (a clone not built yet,
// or a source edited since the build) the TypeScript sources through tsx, with no build step in between.
import { currentBundle } from './cli-bundle.mjs';

const bundle = currentBundle(new URL('../', import.meta.url));
if (bundle) {
  await import(bundle.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/entry.ts');
}
