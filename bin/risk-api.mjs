#!/usr/bin/env node
// Entry point of `npx risk-api`: runs the TypeScript sources through tsx (a dependency),
// so there is no build step between a clone and a working command.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/entry.ts');
