/**
 * Child processes under test. Every child is tracked from spawn to exit and killed when the
 * bench exits for any reason (normal end, exception, Ctrl-C, global time limit), so no server
 * is ever left running.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export type Child = { proc: ChildProcess; name: string; stderr: () => string };

/**
 * The service as `npm start` runs it: (re)builds dist/server/main.mjs from the sources and returns
 * its path. Measuring the tsx-loaded sources instead would add tsx's loader to start-up and RSS.
 */
export function buildService(root: string): string {
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  return path.join(root, 'dist', 'server', 'main.mjs');
}

/**
 * The environment package.json's start script sets before `node` (`NAME=${NAME:-default}`
 * assignments, e.g. MALLOC_ARENA_MAX), read from the script itself so the bench runs the service
 * exactly as `npm start` does; a value already in `env` wins, as it does in the script.
 */
export function startScriptEnv(root: string, env: Record<string, string>): Record<string, string> {
  const start: string = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start;
  const out = { ...env };
  for (const [, name, fallback] of start.matchAll(/(\w+)=\$\{\w+:-([^}]*)\}/g)) out[name!] ??= fallback!;
  return out;
}

/** Runs `node <script>` (through tsx when it is TypeScript); one process: its pid is the server's, so /proc figures are its own. */
export function startNode(
  name: string,
  script: string,
  env: Record<string, string>,
  nodeFlags: string[],
  cwd: string,
): Child {
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  return startProcess(name, process.execPath, [...nodeFlags, ...loader, script], env, cwd);
}

/** Runs any program as a tracked child (killed when the bench exits), its output kept for failure messages. */
export function startProcess(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Child {
  const proc = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
  let err = '';
  const keep = (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-4000);
  };
  proc.stderr!.on('data', keep);
  proc.stdout!.on('data', keep); // warn/error log lines are JSON on stdout: kept for failure messages
  return { proc, name, stderr: () => err };
}

/** A free loopback port (the child binds it a moment later; nothing else runs here meanwhile). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers 200; returns ms since `sinceMs` (performance.now() at spawn). */
export async function waitReady(
  child: Child,
  url: string,
  sinceMs: number,
  limitMs = 180_000,
  headers: Record<string, string> = {},
): Promise<number> {
  while (performance.now() - sinceMs < limitMs) {
    if (child.proc.exitCode !== null || child.proc.signalCode !== null) {
      throw new Error(
        `${child.name} exited (${child.proc.exitCode ?? child.proc.signalCode}) before it was ready:\n${child.stderr()}`,
      );
    }
    try {
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === 200) return Math.round(performance.now() - sinceMs);
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${child.name} not ready within ${limitMs} ms:\n${child.stderr()}`);
}

/** Starts a node script on a free loopback port and waits until `readyPath` answers 200; readyMs counts from spawn. */
export async function startServer(
  name: string,
  script: string,
  env: Record<string, string>,
  readyPath: string,
  cwd: string,
  flags: string[] = [],
) {
  const port = await freePort();
  const spawnedAt = performance.now();
  const child = startNode(name, path.resolve(cwd, script), { ...env, PORT: String(port) }, flags, cwd);
  const readyMs = await waitReady(child, `http://127.0.0.1:${port}${readyPath}`, spawnedAt);
  return { child, baseUrl: `http://127.0.0.1:${port}`, readyMs };
}

/** VmRSS (now) and VmHWM (peak) in MB from /proc, or null when unavailable. */
export function memoryOf(pid: number | undefined): { rssMb: number; peakMb: number } | null {
  if (pid === undefined) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return null;
  }
}

/** SIGTERM (graceful: lets --cpu-prof write its file), then SIGKILL after `graceMs`. */
export async function stop(child: Child, graceMs = 15_000): Promise<void> {
  const { proc } = child;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((proc) => stop({ proc, name: 'child', stderr: () => '' }, 5000)));
}
