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
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

type Proc = { ticks: number; comm: string; ppid: string };

/** utime + stime of one process (all threads) in ticks, its command name and its parent; null when it is gone. */
function procOf(pid: string): Proc | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: fields are counted after its closing one.
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' '); // fields[0] is field 3 (state)
    return {
      ticks: Number(fields[11]) + Number(fields[12]),
      comm: stat.slice(stat.indexOf('(') + 1, close),
      ppid: fields[1]!,
    };
  } catch {
    return null;
  }
}

/** Every live process by pid, read once: the server's tree and the stores are both found in it. */
function processTable(): Map<string, Proc> {
  const table = new Map<string, Proc>();
  for (const pid of readdirSync('/proc')) {
    const p = /^\d+$/.test(pid) ? procOf(pid) : null;
    if (p) table.set(pid, p);
  }
  return table;
}

function descendantsIn(table: ReadonlyMap<string, Proc>, pid: string): string[] {
  const children = new Map<string, string[]>();
  for (const [p, { ppid }] of table) children.set(ppid, [...(children.get(ppid) ?? []), p]);
  const out: string[] = [];
  for (let todo = [pid]; todo.length > 0; ) {
    const next = children.get(todo.pop()!) ?? [];
    out.push(...next);
    todo.push(...next);
  }
  return out;
}

/** The processes a process started, and theirs (a WORKERS service's workers); [] off Linux. */
export function descendantsOf(pid: number): number[] {
  return process.platform === 'linux' ? descendantsIn(processTable(), String(pid)).map(Number) : [];
}

/** CPU ticks of a server: its process and every process under it; null when it is gone. */
function treeTicks(table: ReadonlyMap<string, Proc>, pid: string): number | null {
  const own = table.get(pid);
  if (!own) return null;
  return descendantsIn(table, pid).reduce((sum, p) => sum + table.get(p)!.ticks, own.ticks);
}

const isStore = (comm: string) => comm.startsWith('redis-server') || comm.startsWith('postgres');

function storeTicks(table: ReadonlyMap<string, Proc>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [pid, { ticks, comm }] of table) if (isStore(comm)) out.set(pid, ticks);
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
  const pid = String(serverPid);
  const table0 = processTable();
  const server0 = treeTicks(table0, pid);
  const stores0 = storeTicks(table0);
  const machine0 = machineTicks();
  return (requests) => {
    const table1 = processTable();
    const server1 = treeTicks(table1, pid);
    if (server0 === null || server1 === null || requests === 0) return null;
    let stores = 0;
    for (const [p, ticks] of storeTicks(table1)) stores += ticks - (stores0.get(p) ?? 0);
    const seconds = (performance.now() - startedAt) / 1000;
    const serverS = (server1 - server0) / TICKS_PER_S;
    const machine1 = machineTicks();
    return {
      serverPct: (100 * serverS) / seconds,
      serverUsPerRequest: (serverS * 1e6) / requests,
      storesUsPerRequest: ((stores / TICKS_PER_S) * 1e6) / requests,
      machinePct: (100 * (machine1.busy - machine0.busy)) / Math.max(1, machine1.total - machine0.total),
    };
  };
}

/** CPU seconds (user + system, all threads) a live process has used; null when it is gone or off Linux. */
export function cpuSecondsOf(pid: number | undefined): number | null {
  if (pid === undefined || process.platform !== 'linux') return null;
  const p = procOf(String(pid));
  return p ? p.ticks / TICKS_PER_S : null;
}
