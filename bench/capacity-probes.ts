/**
 * What bench/capacity.ts reads around each measured window (Linux /proc, Redis INFO, PostgreSQL's statistics): CPU
 * ticks of processes, of the whole machine and of this process's finished children (the load generator), Redis
 * commands, and the PostgreSQL backends and rows written of one database.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { LocalRedisCluster } from '../test/helpers/redis-cluster.ts';

export const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** The fields of /proc/<pid>/stat after the command name (fields[0] is field 3, the state). */
function statFields(pid: number | 'self'): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** utime + stime of a live process; 0 once it is gone. */
export function ticksOf(pid: number): number {
  const f = statFields(pid);
  return f ? Number(f[11]) + Number(f[12]) : 0;
}

/** CPU of this process's children that have ended and been waited for (cutime + cstime): the load generator. */
export function finishedChildrenTicks(): number {
  const f = statFields('self')!;
  return Number(f[13]) + Number(f[14]);
}

export function treePids(root: number): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number));
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [p, pp] of rows) if (pp === out[i]) out.push(p!);
  return out;
}

/** The machine's CPU ticks since boot, all cores: busy (all but idle and iowait) and total. */
export function machineTicks(): { busy: number; total: number } {
  const n = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = n.reduce((a, b) => a + b, 0);
  return { busy: total - n[3]! - (n[4] ?? 0), total };
}

/** Commands the masters processed (a replica's count repeats its master's writes; a script's commands count each). */
export async function redisCommands(cluster: LocalRedisCluster): Promise<number> {
  let sum = 0;
  const masters = (await cluster.nodes()).filter((n) => n.role === 'master').map((n) => n.port);
  for (const port of masters) {
    const info = await cluster.cli(port, 'info', 'stats');
    sum += Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? 0);
  }
  return sum;
}

async function withClient<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

/** The PostgreSQL backends serving the service's database (other databases on the server are other work). */
export function backendsOf(url: string): Promise<number[]> {
  return withClient(url, async (c) => {
    const r = await c.query(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return r.rows.map((row) => Number(row.pid));
  });
}

/** Rows inserted, updated and deleted in the database so far (each backend reports its share when it goes idle). */
export function rowsWritten(url: string): Promise<number> {
  return withClient(url, async (c) => {
    const r = await c.query(
      'SELECT (tup_inserted + tup_updated + tup_deleted)::bigint AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(r.rows[0].n);
  });
}
