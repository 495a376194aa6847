/**
 * CPU time per request, from /proc: the server under test (all its threads, and the processes it
 * started: a WORKERS service's workers), and the data stores
 * (every redis-server and postgres process on the machine; the bench runs nothing else on them).
 * Requests/s alone cannot tell a server that is slow per request from one short of CPU: on a
 * 2-core machine shared with the load generator, a single-threaded server saturates its core
 * while the other core idles, and this shows it (server CPU ≈ 100% of one core).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime and stime (USER_HZ; 100 on Linux, asked once). */
const TICKS_PER_S = (() => {
  try { return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100; } catch { return 100; }
})();

/** utime + stime of one process (all threads) in ticks, its command name and its parent; null when it is gone. */
function ticksOf(pid: string): { ticks: number; comm: string; ppid: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: fields are counted after its closing one.
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' '); // fields[0] is field 3 (state)
    return { ticks: Number(fields[11]) + Number(fields[12]), comm: stat.slice(stat.indexOf('(') + 1, close), ppid: fields[1]! };
  } catch {
    return null;
  }
}

const livePids = () => readdirSync('/proc').filter((pid) => /^\d+$/.test(pid));

/** The processes a process started, and theirs (a WORKERS service's workers); [] off Linux. */
export function descendantsOf(pid: number): number[] {
  if (process.platform !== 'linux') return [];
  const children = new Map<string, string[]>();
  for (const p of livePids()) {
    const parent = ticksOf(p)?.ppid;
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), p]);
  }
  const out: number[] = [];
  for (let todo = [String(pid)]; todo.length > 0;) {
    const next = children.get(todo.pop()!) ?? [];
    out.push(...next.map(Number));
    todo.push(...next);
  }
  return out;
}

/** CPU ticks of a server: its process and every process under it. */
function treeTicks(pid: number): number | null {
  const own = ticksOf(String(pid));
  if (!own) return null;
  return descendantsOf(pid).reduce((sum, p) => sum + (ticksOf(String(p))?.ticks ?? 0), own.ticks);
}

const isStore = (comm: string) => comm.startsWith('redis-server') || comm.startsWith('postgres');

function storeTicks(): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of livePids()) {
    const t = ticksOf(pid);
    if (t && isStore(t.comm)) out.set(pid, t.ticks);
  }
  return out;
}

/** The machine's CPU ticks since boot, all cores: busy (everything but idle and iowait) and total. */
function machineTicks(): { busy: number; total: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
  const n = fields.map(Number);
  const total = n.reduce((a, b) => a + b, 0);
  return { busy: total - n[3]! - (n[4] ?? 0), total };
}

export type CpuUse = {
  /** The server's CPU over the measured window (its process and the processes under it), in % of one core. */
  serverPct: number;
  serverUsPerRequest: number;
  /** Redis + PostgreSQL, µs per request (processes that started during the window count from 0). */
  storesUsPerRequest: number;
  /** The whole machine over the window (server, stores, load generator, anything else), in % of all its cores. */
  machinePct: number;
};

/** Starts counting; the returned function ends the window and divides by the requests answered in it. */
export function cpuWindow(serverPid: number | undefined): (requests: number) => CpuUse | null {
  if (serverPid === undefined || process.platform !== 'linux') return () => null;
  const startedAt = performance.now();
  const server0 = treeTicks(serverPid);
  const stores0 = storeTicks();
  const machine0 = machineTicks();
  return (requests) => {
    const server1 = treeTicks(serverPid);
    if (server0 === null || server1 === null || requests === 0) return null;
    let stores = 0;
    for (const [pid, ticks] of storeTicks()) stores += ticks - (stores0.get(pid) ?? 0);
    const seconds = (performance.now() - startedAt) / 1000;
    const serverS = (server1 - server0) / TICKS_PER_S;
    const machine1 = machineTicks();
    return {
      serverPct: (100 * serverS) / seconds,
      serverUsPerRequest: (serverS * 1e6) / requests,
      storesUsPerRequest: (stores / TICKS_PER_S * 1e6) / requests,
      machinePct: (100 * (machine1.busy - machine0.busy)) / Math.max(1, machine1.total - machine0.total),
    };
  };
}
