/**
 * A test run's profile: where its time went, per file and per phase, so a slow suite shows what to fix
 * (docs/testing.md). Written by the profile reporter (reporter.ts) and rendered by `npm run test:profile:show`,
 * which also reads a vitest JSON report (CI's test-artifacts/*.json) for the phases that report holds.
 */
export type FileProfile = {
  file: string;
  project: string;
  /** Loading the file and everything it imports, the setup files and the environment. */
  importMs: number;
  /** beforeAll / afterAll and the like: servers started and stopped, data seeded, outside any one test. */
  hooksMs: number;
  /** The tests themselves (each with its beforeEach / afterEach). */
  testsMs: number;
  /** From the file's start to its end as the run saw it (waiting for a worker not included). */
  wallMs: number;
  /** CPU time of the file's worker process and the processes it waited for (file-cpu.ts); null when not known. */
  cpuMs: number | null;
  tests: number;
  slowest: Array<{ name: string; ms: number }>;
};

/** The machine while the run ran: the CPU its processes used and the load average, to read its wall time by. */
export type RunMachine = {
  /** CPU time (user + system) of the run's processes: vitest, its workers and every process they started and
   *  waited for (servers a test spawns); not the shared PostgreSQL and Redis servers. */
  cpuMs: number;
  cores: number;
  /** The 1-minute load average at the start and at the end of the run. */
  loadStart: number;
  loadEnd: number;
};

export type RunProfile = {
  label: string;
  wallMs: number;
  workers: number | null;
  machine?: RunMachine | null;
  files: FileProfile[];
};

const s = (ms: number) => (ms / 1000).toFixed(1);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** The run as markdown: totals per phase, per folder, then the slowest files and tests. */
export function renderProfile(run: RunProfile, top = 25): string {
  const files = [...run.files].sort((a, b) => b.wallMs - a.wallMs);
  const total = (pick: (f: FileProfile) => number) => s(sum(files.map(pick)));
  const lines = [
    `## Test profile: ${run.label}`,
    '',
    `${files.length} files, ${sum(files.map((f) => f.tests))} tests; wall ${s(run.wallMs)} s` +
      (run.workers ? ` with ${run.workers} worker(s)` : ''),
    '',
    ...machineLines(run, sum(files.map((f) => f.wallMs))),
    '| phase | seconds (summed over files) |',
    '|---|--:|',
    `| import (files, their imports, setup) | ${total((f) => f.importMs)} |`,
    `| hooks (server start and stop, seeding) | ${total((f) => f.hooksMs)} |`,
    `| tests | ${total((f) => f.testsMs)} |`,
    `| file wall time | ${total((f) => f.wallMs)} |`,
    `| CPU of the files' workers and their servers | ${total((f) => f.cpuMs ?? 0)} |`,
    '',
    '| folder | files | wall s | CPU s | import s | hooks s | tests s |',
    '|---|--:|--:|--:|--:|--:|--:|',
  ];
  const folders = new Map<string, FileProfile[]>();
  for (const f of files) {
    const folder = f.file.split('/').slice(0, -1).join('/');
    folders.set(folder, [...(folders.get(folder) ?? []), f]);
  }
  for (const [folder, fs] of [...folders].sort(
    (a, b) => sum(b[1].map((f) => f.wallMs)) - sum(a[1].map((f) => f.wallMs)),
  ))
    lines.push(
      `| ${folder} | ${fs.length} | ${s(sum(fs.map((f) => f.wallMs)))} | ${s(sum(fs.map((f) => f.cpuMs ?? 0)))} | ${s(sum(fs.map((f) => f.importMs)))} | ${s(sum(fs.map((f) => f.hooksMs)))} | ${s(sum(fs.map((f) => f.testsMs)))} |`,
    );
  lines.push('', `Slowest ${Math.min(top, files.length)} files:`, '', ...fileTable(files.slice(0, top)));
  // On a shared machine wall time follows the load; CPU time is what a file costs wherever it runs.
  const costliest = files.filter((f) => f.cpuMs !== null).sort((a, b) => (b.cpuMs ?? 0) - (a.cpuMs ?? 0));
  if (costliest.length)
    lines.push('', `Most CPU, ${Math.min(top, costliest.length)} files:`, '', ...fileTable(costliest.slice(0, top)));
  return lines.join('\n');
}

function fileTable(files: FileProfile[]): string[] {
  const lines = [
    '| file | tests | wall s | CPU s | import s | hooks s | tests s | slowest test |',
    '|---|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const f of files) {
    const slow = f.slowest[0];
    lines.push(
      `| ${f.file} | ${f.tests} | ${s(f.wallMs)} | ${f.cpuMs === null ? '' : s(f.cpuMs)} | ${s(f.importMs)} | ${s(f.hooksMs)} | ${s(f.testsMs)} | ${slow ? `${s(slow.ms)} s ${slow.name.slice(0, 70)}` : ''} |`,
    );
  }
  return lines;
}

/** How busy the run kept the machine, and how busy the machine was: a wall time means little without both. */
function machineLines(run: RunProfile, summedWallMs: number): string[] {
  const overlap = run.wallMs > 0 ? summedWallMs / run.wallMs : 0;
  const lines = [`Files at once (summed file wall / run wall): ${overlap.toFixed(2)}`];
  const m = run.machine;
  if (m)
    lines.push(
      `CPU of the run's own processes: ${s(m.cpuMs)} s, ${(m.cpuMs / Math.max(1, run.wallMs)).toFixed(2)} of ` +
        `${m.cores} cores on average; load average ${m.loadStart.toFixed(1)} at the start, ${m.loadEnd.toFixed(1)} ` +
        'at the end (above the core count, other work shared the machine: compare wall times only within one run)',
    );
  return [...lines, ''];
}

type VitestJsonReport = {
  startTime: number;
  testResults: Array<{
    name: string;
    startTime: number;
    endTime: number;
    assertionResults: Array<{ fullName: string; duration?: number | null }>;
  }>;
};

/** A profile from vitest's JSON report: it holds each file's start and end and its tests, not the import time, so
 *  import and hooks are reported together as hooks. */
export function profileFromJsonReport(report: VitestJsonReport, label: string): RunProfile {
  const files = report.testResults.map((r): FileProfile => {
    const durations = r.assertionResults.map((t) => ({ name: t.fullName, ms: t.duration ?? 0 }));
    const testsMs = sum(durations.map((d) => d.ms));
    const wallMs = Math.max(0, r.endTime - r.startTime);
    return {
      file: r.name.includes('/test/') ? r.name.slice(r.name.lastIndexOf('/test/') + 1) : r.name,
      project: '',
      importMs: 0,
      hooksMs: Math.max(0, wallMs - testsMs),
      testsMs,
      wallMs,
      cpuMs: null,
      tests: durations.length,
      slowest: durations.sort((a, b) => b.ms - a.ms).slice(0, 3),
    };
  });
  const end = Math.max(...report.testResults.map((r) => r.endTime));
  return { label, wallMs: end - report.startTime, workers: null, files };
}
