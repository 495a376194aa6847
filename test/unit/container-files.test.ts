/**
 * The deployment files agree with the code they deploy: every variable the Dockerfile, compose.yaml and the
 * systemd unit set is one src/config.ts reads (or one the docs' configuration table names for the process),
 * the paths they use are the ones the code serves and writes, and the runtime stage copies files that exist
 * after `npm run build` (the global set-up ran it). Executing the runtime stage: test/integration/container.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parse } from 'yaml';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config.ts';
import { envPairs, healthcheckOf, parseDockerfile, type Step } from '../../scripts/runtime-stage.ts';
import { defaultDataFiles } from '../../src/domain/network/load.ts';
// @ts-expect-error: a plain module run in the image before any TypeScript loader (no declarations)
import { PRUNE_RULES as pruneRules } from '../../scripts/prune-runtime.mjs';

const PRUNE_RULES = pruneRules as Array<{ dir: string; remove: (name: string) => boolean }>;

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (f: string) => readFileSync(path.join(ROOT, f), 'utf8');
const docker = parseDockerfile(read('Dockerfile'));
const runtime = docker.stages.at(-1)!;
const steps = (op: string) => runtime.steps.filter((s) => s.op === op);
const one = (op: string): Step => {
  const found = steps(op);
  expect(found, op).toHaveLength(1);
  return found[0]!;
};
const imageEnv = Object.assign({}, ...steps('ENV').map((s) => envPairs(s.args))) as Record<string, string>;
const operations = read('docs/operations.md');
/** Read by the process, not by src/config.ts: each has a row in the docs' configuration table. */
const PROCESS_VARIABLES = ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_'];

type Compose = {
  services: Record<
    string,
    {
      environment?: Record<string, string>;
      healthcheck?: { test: string[] };
      depends_on?: Record<string, { condition: string }>;
      ports?: string[];
      volumes?: string[];
      image?: string;
      build?: string;
      command?: string[];
    }
  >;
  volumes: Record<string, unknown>;
};
const compose = parse(read('compose.yaml')) as Compose;
/** Compose's ${VAR:?message} and ${VAR:-default}, as `docker compose` fills them from .env. */
const interpolate = (v: string, vars: Record<string, string>) =>
  v.replace(
    /\$\{(\w+)(?::[?-]([^}]*))?\}/g,
    (_, name: string, rest?: string) => vars[name] ?? (rest !== undefined && !/^set /.test(rest) ? rest : ''),
  );

function expectKnownVariable(name: string, where: string) {
  expect(
    CONFIG_VARIABLES.includes(name) || PROCESS_VARIABLES.includes(name),
    `${where} sets ${name}, which nothing reads`,
  ).toBe(true);
  expect(operations, `${name} (${where}) is in docs/operations.md's configuration table`).toContain(`| \`${name}\``);
}

describe('Dockerfile', () => {
  it('builds with the commands CI runs and installs only the runtime packages in the last stage', () => {
    expect(docker.stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    const runs = (stage: number) => docker.stages[stage]!.steps.filter((s) => s.op === 'RUN').map((s) => s.args);
    expect(runs(0)).toEqual(['npm ci --no-audit --no-fund --ignore-scripts', 'npm run build']);
    expect(runs(1)[0]).toBe(
      'npm ci --omit=dev --omit=optional --no-audit --no-fund --ignore-scripts && npm run prune:runtime',
    );
    expect(JSON.parse(read('package.json')).scripts.build).toBe('node scripts/build.mjs');
  });

  it('copies into the runtime stage only files that exist after npm run build, none excluded from the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    for (const step of steps('COPY')) {
      for (const src of step.args.split(/\s+/).slice(0, -1)) {
        const file = step.flags.from === 'build' ? src.replace(/^\/app\//, '') : src;
        expect(existsSync(path.join(ROOT, file)), `${step.raw}: ${file}`).toBe(true);
        if (step.flags.from === undefined)
          expect(
            ignored.some((i) => file === i || file.startsWith(`${i}/`)),
            `${file} is in .dockerignore`,
          ).toBe(false);
      }
    }
    // What the bundle reads at run time: its chunks and worker, the migrations, package.json (the package root).
    for (const f of [
      'dist/server/main.mjs',
      'dist/server/network-worker.mjs',
      'dist/server/cli.mjs',
      'dist/graphiql/version.txt',
      'scripts/prune-runtime.mjs',
      'prisma/migrations',
      'package.json',
      'bin/risk-api.mjs',
    ])
      expect(existsSync(path.join(ROOT, f)), f).toBe(true);
  });

  it('prunes no file the network loader reads, and each rule removes something that is there', () => {
    const modules = path.join(ROOT, 'node_modules');
    for (const file of Object.values(defaultDataFiles())) {
      const rule = PRUNE_RULES.find((r) => file.startsWith(`${path.join(modules, r.dir)}/`));
      expect(rule?.remove(path.basename(file)) ?? false, `${file} is pruned`).toBe(false);
    }
    for (const rule of PRUNE_RULES)
      expect(readdirSync(path.join(modules, rule.dir)).some(rule.remove), `${rule.dir}: removes nothing`).toBe(true);
  });

  it('runs as a non-root user with DATA_DIR as a volume, on the port it exposes, with the start command of the docs', () => {
    expect(one('USER').args).toBe('node');
    expect(JSON.parse(one('VOLUME').args)).toEqual([imageEnv.DATA_DIR]);
    expect(Number(one('EXPOSE').args)).toBe(Number(imageEnv.PORT));
    expect(JSON.parse(one('CMD').args)).toEqual(['node', 'dist/server/main.mjs']);
    expect(one('STOPSIGNAL').args).toBe('SIGTERM');
    for (const name of Object.keys(imageEnv)) expectKnownVariable(name, 'the Dockerfile');
    expect(loadConfig(imageEnv)).toMatchObject({ host: '0.0.0.0', port: 8080, dataDir: '/var/lib/risk-api' });
  });

  it('checks health on /readyz, the route that answers 503 until the database and counters answer', () => {
    const health = healthcheckOf(one('HEALTHCHECK'));
    expect(health.cmd.join(' ')).toMatch(/http:\/\/127\.0\.0\.1:' \+ process\.env\.PORT \+ '\/readyz'/);
    expect(read('src/transport/http/health.ts')).toContain("['/readyz', readyz]");
    expect(Object.keys(health.options).sort()).toEqual(['interval', 'retries', 'start-period', 'timeout']);
  });
});

describe('compose.yaml', () => {
  const service = compose.services['risk-api']!;
  const secrets = { POSTGRES_PASSWORD: 'a'.repeat(48), API_KEY_PEPPER: 'b'.repeat(64) };
  const env = Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(v, secrets)]),
  );

  it('sets only variables src/config.ts reads, and values it accepts', () => {
    for (const name of Object.keys(service.environment ?? {})) expectKnownVariable(name, 'compose.yaml');
    const config = loadConfig({ ...imageEnv, ...env });
    expect(config).toMatchObject({
      databaseUrl: `postgresql://risk:${secrets.POSTGRES_PASSWORD}@postgres:5432/risk`,
      redisUrl: 'redis://redis:6379',
      apiKeyPepper: secrets.API_KEY_PEPPER,
    });
  });

  it('points the service at its PostgreSQL and Redis, started first and healthy', () => {
    const pg = compose.services.postgres!,
      redis = compose.services.redis!;
    const url = new URL(env.DATABASE_URL!);
    const pgEnv = Object.fromEntries(Object.entries(pg.environment!).map(([k, v]) => [k, interpolate(v, secrets)]));
    expect([url.hostname, url.username, url.password, url.pathname.slice(1)]).toEqual([
      'postgres',
      pgEnv.POSTGRES_USER,
      pgEnv.POSTGRES_PASSWORD,
      pgEnv.POSTGRES_DB,
    ]);
    expect(new URL(env.REDIS_URL!).hostname).toBe('redis');
    expect(pg.healthcheck!.test).toEqual(['CMD', 'pg_isready', '-U', pgEnv.POSTGRES_USER, '-d', pgEnv.POSTGRES_DB]);
    expect(redis.healthcheck!.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(service.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    // PostgreSQL 15 and Redis 7: the versions CI tests against (docs/operations.md).
    expect([pg.image, redis.image]).toEqual(['postgres:15-bookworm', 'redis:7-bookworm']);
  });

  it("keeps DATA_DIR on a named volume and publishes the image's port on loopback", () => {
    expect(service.build).toBe('.');
    expect(service.volumes).toEqual([`risk-data:${imageEnv.DATA_DIR}`]);
    expect(service.ports).toEqual([`127.0.0.1:${imageEnv.PORT}:${imageEnv.PORT}`]);
    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(['risk-data', 'pg-data', 'redis-data']));
  });
});

describe('systemd unit (deploy/risk-api.service)', () => {
  const unit = read('deploy/risk-api.service');
  const directives = (name: string) => [...unit.matchAll(new RegExp(`^${name}=(.*)$`, 'gm'))].map((m) => m[1]!);
  const unitEnv = Object.assign({}, ...directives('Environment').map(envPairs)) as Record<string, string>;

  it('starts the bundle as the image does, with the same settings and DATA_DIR as its only writable path', () => {
    expect(directives('ExecStart')).toEqual([`/usr/bin/node ${JSON.parse(one('CMD').args).slice(1).join(' ')}`]);
    for (const name of Object.keys(unitEnv)) expectKnownVariable(name, 'the systemd unit');
    expect(unitEnv).toEqual({ ...imageEnv, HOST: '127.0.0.1' });
    expect(directives('ReadWritePaths')).toEqual([unitEnv.DATA_DIR]);
    expect(directives('StateDirectory').map((d) => `/var/lib/${d}`)).toEqual([unitEnv.DATA_DIR]);
    expect(directives('KillSignal')).toEqual([one('STOPSIGNAL').args]);
    for (const [name, value] of [
      ['NoNewPrivileges', 'yes'],
      ['ProtectSystem', 'strict'],
      ['ProtectHome', 'yes'],
      ['PrivateTmp', 'yes'],
      ['CapabilityBoundingSet', ''],
      ['UMask', '0077'],
    ]) {
      expect(directives(name!), name).toEqual([value]);
    }
    expect(directives('MemoryDenyWriteExecute'), 'V8 needs W+X pages').toEqual([]);
  });

  const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;
  it.skipIf(!analyze)('passes systemd-analyze verify, and its offline security review rates it OK', () => {
    const file = path.join(ROOT, 'deploy/risk-api.service');
    const verify = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.stderr).toBe('');
    // --threshold counts tenths: an exposure above 2.0 of 10 fails (the unit scores 1.7, "OK").
    const security = spawnSync('systemd-analyze', ['security', '--offline=true', '--threshold=20', file], {
      encoding: 'utf8',
    });
    expect(security.status, security.stdout.slice(-500)).toBe(0);
  });
});
