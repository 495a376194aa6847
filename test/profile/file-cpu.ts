import { afterAll } from 'vitest';
import { processTreeCpuMs } from './cpu.ts';

/**
 * A setup file: when its test file ends, records in the file's task meta the CPU time its worker process used
 * (user + system, with every child process it waited for: servers a test spawned). A file's wall time on a shared
 * machine says how busy the machine was; its CPU time says what the file costs. The profile reporter prints it.
 * Each file runs in a fresh worker process (pool 'forks', isolated), so the process's total is the file's: its
 * imports, hooks and tests.
 */
declare module 'vitest' {
  interface TaskMeta {
    cpuMs?: number;
  }
}

// biome-ignore lint/correctness/noEmptyPattern: vitest reads a hook's first parameter as its fixtures, an object pattern
afterAll(({}, suite) => {
  const cpu = processTreeCpuMs();
  if (cpu !== null) suite.meta.cpuMs = cpu;
});
