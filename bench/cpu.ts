/**
 * CPU time per request, from /proc: the server under test (all its threads), and the data stores
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

/** utime + stime of one process (all threads) in ticks, and its command name; null when it is gone. */
function ticksOf(pid: string): { ticks: number; comm: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: fields are counted after its closing one.
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' '); // fields[0] is field 3 (state)
    return { ticks: Number(fields[11]) + Number(fields[12]), comm: stat.slice(stat.indexOf('(') + 1, close) };
  } catch {
    return null;
  }
}

const isStore = (comm: string) => comm.startsWith('redis-server') || comm.startsWith('postgres');

function storeTicks(): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const t = ticksOf(pid);
    if (t && isStore(t.comm)) out.set(pid, t.ticks);
  }
  return out;
}

export type CpuUse = {
  /** The server's CPU over the measured window, in % of one core. */
  serverPct: number;
  serverUsPerRequest: number;
  /** Redis + PostgreSQL, µs per request (processes that started during the window count from 0). */
  storesUsPerRequest: number;
};

/** Starts counting; the returned function ends the window and divides by the requests answered in it. */
export function cpuWindow(serverPid: number | undefined): (requests: number) => CpuUse | null {
  if (serverPid === undefined || process.platform !== 'linux') return () => null;
  const startedAt = performance.now();
  const server0 = ticksOf(String(serverPid));
  const stores0 = storeTicks();
  return (requests) => {
    const server1 = ticksOf(String(serverPid));
    if (!server0 || !server1 || requests === 0) return null;
    let stores = 0;
    for (const [pid, ticks] of storeTicks()) stores += ticks - (stores0.get(pid) ?? 0);
    const seconds = (performance.now() - startedAt) / 1000;
    const serverS = (server1.ticks - server0.ticks) / TICKS_PER_S;
    return {
      serverPct: (100 * serverS) / seconds,
      serverUsPerRequest: (serverS * 1e6) / requests,
      storesUsPerRequest: (stores / TICKS_PER_S * 1e6) / requests,
    };
  };
}
