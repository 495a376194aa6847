import { defineConfig } from 'prisma/config';

// The CLI is only used for `generate` (see scripts/generate.mjs); migrations are created
// and applied by the project's own runner, which needs no downloaded engine.
export default defineConfig({ schema: 'prisma/schema.prisma' });
