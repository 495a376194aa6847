import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { freshEnvironment, backendName, usingPostgres, type TestEnv } from '../helpers/backend.ts';
import { runRuntimeStage } from '../../scripts/runtime-stage.ts';

/**
 * The Dockerfile's runtime stage, executed without a container engine (scripts/runtime-stage.ts): its
 * `npm ci --omit=dev` in a directory standing for the image, the bundle, migrations and CLI copied in, its CMD
 * started with its ENV and this backend's settings (as compose passes DATABASE_URL and REDIS_URL), until its
 * HEALTHCHECK command passes; then the operator CLI as the docs run it in the container, then SIGTERM.
 * The install is kept in test-artifacts/ and reused while the lockfile is unchanged. Each backend has a root of its
 * own, so the two passes can run at once (.ci/run) without one removing the other's DATA_DIR or install.
 */
const ROOT = path.resolve(`test-artifacts/runtime-stage-${backendName}`);

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
    const { DATA_DIR: _ownDataDir, ...backend } = env.env;
    const lines: string[] = [];
    const r = await runRuntimeStage({
      root: ROOT,
      env: { ...backend, LOG_LEVEL: 'info' },
      reuseInstall: true,
      log: (l) => lines.push(l),
      timeoutMs: 300_000,
    });
    expect(r.seen.runs.map((x) => x.run)).toEqual([
      'npm ci --omit=dev --no-audit --no-fund --ignore-scripts',
      'mkdir -p /var/lib/risk-api && chown node:node /var/lib/risk-api && chmod 0700 /var/lib/risk-api',
    ]);
    const modules = path.join(ROOT, 'app/node_modules');
    expect(
      existsSync(path.join(modules, '@ip-location-db/asn')),
      'the network data ships in the runtime packages',
    ).toBe(true);
    for (const dev of ['vitest', 'playwright-core', 'smtp-server', '@biomejs/biome'])
      expect(existsSync(path.join(modules, dev)), `no development package: ${dev}`).toBe(false);
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
    expect(r.exit).toEqual({ code: 0, signal: null });
    expect(lines.at(-1)).toMatch(/^healthy after \d+ ms/);
  });
});
