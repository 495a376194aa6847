// Runs `prisma generate` without the native schema engine: Prisma 7's CLI only needs the
// engine path to name an existing file (generate never runs it), and the download that
// would otherwise happen cannot succeed on machines limited to the npm registry.
import { spawnSync } from 'node:child_process';

const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1' };
const result = spawnSync('npx', ['prisma', 'generate'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
