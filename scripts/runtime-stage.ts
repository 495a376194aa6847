// Executes the Dockerfile's runtime stage without a container engine (none can pull a base image on the
// machines this project is built on): its COPY steps into a directory standing for the image's file system,
// its npm commands there, then its CMD with its ENV, until its HEALTHCHECK command passes; then the operator
// CLI inside it, then a stop with its STOPSIGNAL, which must exit 0. The build stage is this checkout after
// `npm ci` and `npm run build` (what CI runs), so `COPY --from=build /app/X` copies the checkout's X.
//
// Only the instructions this project's Dockerfile uses are understood, and of RUN only npm commands and the
// creation of the DATA_DIR volume: anything else stops the run, so a new step in the Dockerfile cannot go
// untested without someone deciding how it is tested here.
//
//   npm run container:check [-- --keep] [-- --root DIR]      (docs/operations.md#container)
// Environment variables given to this script (DATABASE_URL, REDIS_URL, …) reach the server as `docker run -e`
// would pass them; HOST, PORT and DATA_DIR are replaced by a loopback address, a free port and a directory
// under the stage's root.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

export const CHECKOUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export type Step = { op: string; flags: Record<string, string | true>; args: string; raw: string };
export type Stage = { name: string | undefined; from: string; steps: Step[] };

/** The Dockerfile as stages of steps; continuation lines joined, comments dropped. */
export function parseDockerfile(text: string): { args: Record<string, string | undefined>; stages: Stage[] } {
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages: Stage[] = [];
  const args: Record<string, string | undefined> = {};
  for (const line of lines) {
    const [, op, rest] = /^(\S+)\s*(.*)$/.exec(line)!;
    const words = rest!.split(/\s+/);
    const flags: Record<string, string | true> = {};
    while (words[0]?.startsWith('--')) {
      const [k, v] = words.shift()!.slice(2).split(/=(.*)/s);
      flags[k!] = v ?? true;
    }
    const step: Step = { op: op!.toUpperCase(), flags, args: words.join(' '), raw: line };
    if (step.op === 'ARG' && stages.length === 0) {
      const [k, v] = step.args.split(/=(.*)/s);
      args[k!] = v;
    } else if (step.op === 'FROM') {
      const [, image, name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(step.args)!;
      stages.push({ name, from: image!.replace(/^\$\{(\w+)\}$/, (_, a: string) => args[a] ?? image!), steps: [] });
    } else {
      stages.at(-1)!.steps.push(step);
    }
  }
  return { args, stages };
}

/** ENV k=v k2=v2 (values without spaces or quotes: all this Dockerfile needs). */
export function envPairs(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => {
        const m = /^([A-Za-z_][A-Za-z0-9_]*)=([^\s"'$]*)$/.exec(pair);
        if (!m) throw new Error(`ENV ${pair}: only NAME=value pairs without quotes or variables are understood`);
        return [m[1]!, m[2]!];
      }),
  );
}

/** HEALTHCHECK [--opt=v …] CMD ["exe", …] → { options, cmd }. */
export function healthcheckOf(step: Step): { options: Step['flags']; cmd: string[] } {
  const m = /^CMD\s+(\[.*\])$/.exec(step.args);
  if (!m) throw new Error(`HEALTHCHECK: only the exec form CMD ["…"] is understood: ${step.raw}`);
  return { options: step.flags, cmd: JSON.parse(m[1]!) as string[] };
}

/** The one RUN that is not an npm command: the DATA_DIR volume, made for the image's non-root user. */
const DATA_DIR_RUN = /^mkdir -p (\/\S+) && chown node:node \1 && chmod 0700 \1$/;

/** Bytes of the files under `dir` (apparent sizes; links not followed), as the image's layers would hold them. */
export function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    total += entry.isDirectory() ? treeBytes(p) : lstatSync(p).size;
  }
  return total;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

export type StageOptions = {
  /** The directory standing for the image's file system. */
  root: string;
  /** Variables passed to the server as `docker run -e` would. */
  env?: Record<string, string>;
  log?: (line: string) => void;
  reuseInstall?: boolean;
  timeoutMs?: number;
};
export type Observed = {
  copies: Array<{ from: string; to: string }>;
  runs: Array<{ run: string; emulated?: boolean; reused?: boolean; ms?: number }>;
  volumes: string[];
  user: string | null;
  expose: number[];
  healthcheck: ReturnType<typeof healthcheckOf> | null;
  cmd: string[] | null;
  stopSignal: string;
};

/**
 * Runs the runtime stage under `root`. `reuseInstall`: skip an npm RUN step whose command and lockfile match
 * the last one completed in this root (two test passes share one install). Resolves with what was observed.
 */
export async function runRuntimeStage({
  root,
  env = {},
  log = (l) => console.error(l),
  reuseInstall = false,
  timeoutMs = 180_000,
}: StageOptions) {
  const { stages } = parseDockerfile(readFileSync(path.join(CHECKOUT, 'Dockerfile'), 'utf8'));
  const build = stages.find((s) => s.name === 'build');
  const stage = stages.find((s) => s.name === 'runtime');
  if (!build || !stage || stages.at(-1) !== stage)
    throw new Error('the Dockerfile must have a "build" stage and end with a "runtime" stage');
  if (
    !build.steps.some((s) => s.op === 'WORKDIR' && s.args === '/app') ||
    !build.steps.some((s) => s.op === 'COPY' && s.args === '. .')
  ) {
    throw new Error(
      'the build stage must copy the checkout to /app (WORKDIR /app, COPY . .): this script stands the checkout in for it',
    );
  }
  const inImage = (p: string) => path.join(root, p);
  let workdir = '/';
  const imageEnv: Record<string, string> = {};
  const seen: Observed = {
    copies: [],
    runs: [],
    volumes: [],
    user: null,
    expose: [],
    healthcheck: null,
    cmd: null,
    stopSignal: 'SIGTERM',
  };
  const lockHash = createHash('sha256')
    .update(readFileSync(path.join(CHECKOUT, 'package-lock.json')))
    .digest('hex');
  // What the stage copied from the build context so far (a RUN may run it: the prune script): a reused install
  // must have run the same files.
  const copied = createHash('sha256');
  for (const step of stage.steps) {
    const here = (p: string) => (p.startsWith('/') ? p : path.posix.join(workdir, p));
    switch (step.op) {
      case 'WORKDIR':
        workdir = here(step.args);
        mkdirSync(inImage(workdir), { recursive: true });
        break;
      case 'COPY': {
        const parts = step.args.split(/\s+/);
        const dest = here(parts.pop()!);
        for (const src of parts) {
          let from: string;
          if (step.flags.from === undefined) from = path.join(CHECKOUT, src);
          else if (step.flags.from === 'build' && src.startsWith('/app/'))
            from = path.join(CHECKOUT, src.slice('/app/'.length));
          else throw new Error(`COPY: only the build context and --from=build /app/… are understood: ${step.raw}`);
          if (!existsSync(from)) throw new Error(`COPY ${src}: ${from} does not exist (run npm run build first)`);
          const to = dest.endsWith('/') || parts.length > 1 ? path.posix.join(dest, path.basename(src)) : dest;
          cpSync(from, inImage(to), { recursive: true });
          seen.copies.push({ from, to });
          if (step.flags.from === undefined && statSync(from).isFile()) copied.update(readFileSync(from));
        }
        break;
      }
      case 'RUN': {
        const data = DATA_DIR_RUN.exec(step.args);
        if (data) {
          mkdirSync(inImage(data[1]!), { recursive: true });
          chmodSync(inImage(data[1]!), 0o700);
          seen.runs.push({ run: step.args, emulated: true });
          break;
        }
        if (!step.args.split(' && ').every((command) => /^npm (ci|run|cache) /.test(command)))
          throw new Error(`RUN: only npm commands (joined by &&) and the DATA_DIR set-up are understood: ${step.raw}`);
        const marker = path.join(inImage(workdir), '.runtime-stage-install');
        const done = `${lockHash} ${copied.copy().digest('hex')} ${step.args}`;
        if (reuseInstall && existsSync(marker) && readFileSync(marker, 'utf8') === done) {
          log(`RUN ${step.args}: reused the install of an earlier run`);
          seen.runs.push({ run: step.args, reused: true });
          break;
        }
        log(`RUN ${step.args}`);
        const started = performance.now();
        // The local npm cache serves the lockfile's packages (the image build gets them from the registry).
        const r = spawnSync('sh', ['-c', step.args], {
          cwd: inImage(workdir),
          encoding: 'utf8',
          maxBuffer: 64 * 1024 * 1024,
          env: { ...process.env, npm_config_prefer_offline: 'true' },
        });
        if (r.status !== 0)
          throw new Error(`RUN ${step.args}: exit ${r.status}\n${(r.stdout + r.stderr).slice(-4000)}`);
        log(`  ${r.stdout.trim().split('\n').at(-1)}`); // npm's summary ("added 529 packages in 1m"), without its engine warnings
        writeFileSync(marker, done);
        seen.runs.push({ run: step.args, ms: Math.round(performance.now() - started) });
        break;
      }
      case 'ENV':
        Object.assign(imageEnv, envPairs(step.args));
        break;
      case 'USER':
        seen.user = step.args;
        break;
      case 'VOLUME':
        seen.volumes.push(...(JSON.parse(step.args) as string[]));
        break;
      case 'EXPOSE':
        seen.expose.push(Number(step.args));
        break;
      case 'HEALTHCHECK':
        seen.healthcheck = healthcheckOf(step);
        break;
      case 'STOPSIGNAL':
        seen.stopSignal = step.args;
        break;
      case 'CMD':
        seen.cmd = JSON.parse(step.args) as string[];
        break;
      default:
        throw new Error(`${step.op}: not understood by this script: ${step.raw}`);
    }
  }
  const { cmd: command, healthcheck } = seen;
  if (!command || !healthcheck) throw new Error('the runtime stage needs a CMD and a HEALTHCHECK');

  // As `docker run -e …` would start it, on loopback and a free port, DATA_DIR inside the stage's root.
  const port = await freePort();
  const runEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    ...imageEnv,
    ...env,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: inImage(imageEnv.DATA_DIR ?? '/data'),
  };
  const exe = (cmd: string[]) =>
    [cmd[0] === 'node' ? process.execPath : cmd[0]!, ...cmd.slice(1)] as [string, ...string[]];
  const [cmd, ...cmdArgs] = exe(command);
  const started = performance.now();
  const server = spawn(cmd, cmdArgs, { cwd: inImage(workdir), env: runEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  server.stdout.on('data', (d) => output.push(String(d)));
  server.stderr.on('data', (d) => output.push(String(d)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    server.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let exitedEarly: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  void exited.then((e) => {
    exitedEarly = e;
  });
  try {
    let healthy = false;
    let probes = 0;
    while (!healthy) {
      if (exitedEarly)
        throw new Error(
          `the server exited (${JSON.stringify(exitedEarly)}) before its health check passed:\n${output.join('')}`,
        );
      if (performance.now() - started > timeoutMs)
        throw new Error(`the health check did not pass within ${timeoutMs / 1000} s:\n${output.join('')}`);
      const [probe, ...probeArgs] = exe(healthcheck.cmd);
      healthy = spawnSync(probe, probeArgs, { cwd: inImage(workdir), env: runEnv, timeout: 10_000 }).status === 0;
      probes++;
      if (!healthy) await sleep(500);
    }
    const readyMs = Math.round(performance.now() - started);
    log(`healthy after ${readyMs} ms (${probes} probes of the HEALTHCHECK command)`);
    // The operator CLI as the docs run it in the container (`docker compose exec risk-api npx risk-api …`).
    const cli = spawnSync('npx', ['--no-install', 'risk-api', 'tiers', 'list', '--json'], {
      cwd: inImage(workdir),
      env: runEnv,
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (cli.status !== 0) throw new Error(`npx risk-api tiers list: exit ${cli.status}\n${cli.stderr}`);
    const version = spawnSync('npx', ['--no-install', 'risk-api', 'version', '--json'], {
      cwd: inImage(workdir),
      env: runEnv,
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (version.status !== 0) throw new Error(`npx risk-api version: exit ${version.status}\n${version.stderr}`);
    // GraphiQL as a browser opens it: the page, then the bundle it names (served from dist/graphiql).
    const base = `http://127.0.0.1:${port}`;
    const page = await fetch(`${base}/graphql`, { headers: { accept: 'text/html' } });
    const pageHtml = await page.text();
    const bundlePath = /src="([^"]*graphiql\.js)"/.exec(pageHtml)?.[1];
    const bundle = bundlePath ? await fetch(`${base}${bundlePath}`) : null;
    const graphiql = {
      page: page.status,
      bundle: bundle?.status ?? null,
      bundleBytes: (await bundle?.arrayBuffer())?.byteLength ?? 0,
    };
    server.kill(seen.stopSignal as NodeJS.Signals);
    const exit = await exited;
    const app = inImage(workdir);
    const sizes = { app: treeBytes(app), nodeModules: treeBytes(path.join(app, 'node_modules')) };
    log(
      `the image's ${workdir}: ${(sizes.app / 1e6).toFixed(1)} MB, of which node_modules ${(sizes.nodeModules / 1e6).toFixed(1)} MB`,
    );
    return {
      root,
      port,
      readyMs,
      probes,
      seen,
      imageEnv,
      cliOutput: cli.stdout,
      versionOutput: version.stdout,
      graphiql,
      sizes,
      exit,
      output: output.join(''),
    };
  } finally {
    if (!exitedEarly && server.exitCode === null) server.kill('SIGKILL');
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const keep = process.argv.includes('--keep');
  const at = process.argv.indexOf('--root');
  const root =
    at > 0 ? path.resolve(process.argv[at + 1] ?? '.') : mkdtempSync(path.join(tmpdir(), 'risk-api-runtime-stage-'));
  console.error(`build stage: npm run build in ${CHECKOUT}`);
  const built = spawnSync('npm', ['run', 'build'], { cwd: CHECKOUT, stdio: 'inherit' });
  if (built.status !== 0) process.exit(1);
  const passed = Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] =>
        /^(DATABASE_URL|REDIS_URL|REDIS_CLUSTER_NODES|REDIS_KEY_PREFIX|API_KEY_PEPPER|LOG_LEVEL)$/.test(e[0]) &&
        e[1] !== undefined,
    ),
  );
  try {
    const r = await runRuntimeStage({ root, env: passed, reuseInstall: at > 0 });
    console.error(
      `runtime stage in ${root}: healthy after ${r.readyMs} ms; the CLI answered; GraphiQL ${r.graphiql.page}/${r.graphiql.bundle}; stopped with ${r.seen.stopSignal}: exit ${r.exit.code}; /app ${(r.sizes.app / 1e6).toFixed(1)} MB (node_modules ${(r.sizes.nodeModules / 1e6).toFixed(1)} MB)`,
    );
    process.exitCode = r.exit.code === 0 ? 0 : 1;
  } catch (e) {
    console.error(`runtime stage failed: ${(e as Error).message}`);
    process.exitCode = 1;
  } finally {
    if (!keep && at < 0) rmSync(root, { recursive: true, force: true });
  }
}
