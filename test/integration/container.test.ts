import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { freshEnvironment, backendName, usingPostgres, type TestEnv } from '../helpers/backend.ts';
import { runRuntimeStage } from '../../scripts/runtime-stage.ts';
import { buildInfo } from '../../src/platform/build-info.ts';

/**
 * The Dockerfile's runtime stage, executed without a container engine (scripts/runtime-stage.ts): its
 * `npm ci --omit=dev` in a directory standing for the image, the bundle, migrations and CLI copied in, its CMD
 * started with its ENV and this backend's settings (as compose passes DATABASE_URL and REDIS_URL), until its
 * HEALTHCHECK command passes; then the operator CLI as the docs run it in the container, then SIGTERM.
 * The install is kept in test-artifacts/ and reused while the lockfile is unchanged. Each backend has a root of its
 * own, so the two passes can run at once (.ci/run) without one removing the other's DATA_DIR or install.
 */
const ROOT = path.resolve(`test-artifacts/runtime-stage-${backendName}`);
const NODE_MODULES_BUDGET = 170e6;
const APP_BUDGET = 190e6;

describe(`the Dockerfile's runtime stage (${backendName})`, () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await freshEnvironment();
    mkdirSync(ROOT, { recursive: true });
    rmSync(path.join(ROOT, 'var'), { recursive: true, force: true }); // DATA_DIR: a fresh one each run
  });
  afterAll(() => env?.cleanup());

  it('installs the runtime packages, starts from the bundle, passes its HEALTHCHECK, serves the CLI and stops cleanly', {
    timeout: 900_000,
  }, async () => {
    // Its own DATA_DIR and, as in a real container, the network index's image under it: the stage's data files are
    // another install, so its image has another name, and a third image in the tests' shared directory would prune
    // one the other files are reading (decision 0032 keeps two).
    const { DATA_DIR: _ownDataDir, NETWORK_IMAGE_DIR: _sharedImages, ...backend } = env.env;
    const lines: string[] = [];
    const r = await runRuntimeStage({
      root: ROOT,
      env: { ...backend, LOG_LEVEL: 'info' },
      reuseInstall: true,
      log: (l) => lines.push(l),
      timeoutMs: 300_000,
    });
    expect(r.seen.runs.map((x) => x.run)).toEqual([
      'npm ci --omit=dev --omit=optional --no-audit --no-fund --ignore-scripts && npm run prune:runtime',
      'mkdir -p /var/lib/risk-api && chown node:node /var/lib/risk-api && chmod 0700 /var/lib/risk-api',
    ]);
    const modules = path.join(ROOT, 'app/node_modules');
    expect(
      existsSync(path.join(modules, '@ip-location-db/asn')),
      'the network data ships in the runtime packages',
    ).toBe(true);
    for (const dev of ['vitest', 'playwright-core', 'smtp-server', '@biomejs/biome', 'esbuild', 'tsx'])
      expect(existsSync(path.join(modules, dev)), `no development package: ${dev}`).toBe(false);
    // GraphiQL's editor sources, the prisma CLI and TypeScript (optional peers of @prisma/client), and the query
    // compilers of other databases are not in the image; GraphiQL's prebuilt files (dist/graphiql) are served.
    for (const unused of [
      '@graphql-yoga/graphiql',
      'monaco-editor',
      'react',
      'prisma',
      'typescript',
      '@prisma/client/runtime/query_compiler_fast_bg.mysql.wasm-base64.js',
      '@ip-location-db/asn/asn-ipv4.csv',
    ])
      expect(existsSync(path.join(modules, unused)), `not in the image: ${unused}`).toBe(false);
    expect(r.graphiql).toMatchObject({ page: 200, bundle: 200 });
    expect(r.graphiql.bundleBytes).toBeGreaterThan(1_000_000);
    // The size budget (docs/operations.md#container), in apparent bytes: node_modules was ~680 MB before the runtime
    // stage was pruned and 158 MB after (npm 11, the lockfile of that change), /app 174 MB. Room for dependency
    // updates, not for a package that ships sources or data nothing reads.
    expect(r.sizes.nodeModules, 'node_modules of the runtime stage, bytes').toBeLessThan(NODE_MODULES_BUDGET);
    expect(r.sizes.app, '/app of the runtime stage, bytes').toBeLessThan(APP_BUDGET);
    const listening = r.output
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'listening');
    expect(listening, r.output).toMatchObject({
      database: usingPostgres ? 'postgresql' : 'pglite',
      url: `http://127.0.0.1:${r.port}`,
    });
    expect(
      existsSync(path.join(ROOT, 'var/lib/risk-api', usingPostgres ? 'secrets' : 'pglite')),
      'DATA_DIR is the volume',
    ).toBe(true);
    expect((JSON.parse(r.cliOutput) as Array<{ code: string }>).map((t) => t.code)).toContain('developer');
    // No .git in the image: the commit is the one the build recorded, this checkout's.
    expect(JSON.parse(r.versionOutput)).toEqual(buildInfo());
    expect(r.exit).toEqual({ code: 0, signal: null });
    expect(lines.find((l) => l.startsWith('healthy after'))).toMatch(/^healthy after \d+ ms/);
  });
});
