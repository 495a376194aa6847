import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { backendName } from '../helpers/backend.ts';
import { processTreeCpuMs } from './cpu.ts';
import { type FileProfile, type RunMachine, type RunProfile, renderProfile } from './profile.ts';

/**
 * A vitest reporter that profiles the run (profile.ts): per file, the import, the hooks (server start-up and
 * seeding) and the tests, from vitest's own diagnostics. Writes test-artifacts/profile-<backend>.{json,md} and
 * prints the slowest files. `npm run test:profile` runs the suite with it; .ci/run adds it to both passes.
 */
export default class ProfileReporter implements Reporter {
  private vitest: Vitest | undefined;
  private started = 0;
  private cpuAtStart: number | null = null;
  private loadAtStart = 0;
  private readonly starts = new Map<string, number>();
  private readonly files: FileProfile[] = [];

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
    this.started = performance.now();
    this.cpuAtStart = processTreeCpuMs();
    this.loadAtStart = loadavg()[0]!;
  }

  onTestModuleQueued(module: TestModule): void {
    this.starts.set(module.moduleId, performance.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    const tests = [...module.children.allTests()].map((t) => ({ name: t.fullName, ms: t.diagnostic()?.duration ?? 0 }));
    const testsMs = tests.reduce((a, t) => a + t.ms, 0);
    this.files.push({
      file: path.relative(this.vitest?.config.root ?? process.cwd(), module.moduleId),
      project: module.project.name,
      importMs: d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration,
      hooksMs: Math.max(0, d.duration - testsMs),
      testsMs,
      wallMs: performance.now() - (this.starts.get(module.moduleId) ?? performance.now()),
      cpuMs: module.meta().cpuMs ?? null,
      tests: tests.length,
      slowest: tests.sort((a, b) => b.ms - a.ms).slice(0, 3),
    });
  }

  onTestRunEnd(): void {
    const root = this.vitest?.config.root ?? process.cwd();
    const run: RunProfile = {
      label: backendName,
      wallMs: performance.now() - this.started,
      workers: this.vitest?.projects[0]?.config.maxWorkers ?? this.vitest?.config.maxWorkers ?? null,
      machine: this.machine(),
      files: this.files,
    };
    const dir = path.join(root, 'test-artifacts');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `profile-${backendName}.json`), `${JSON.stringify(run, null, 1)}\n`);
    const text = renderProfile(run, 15);
    writeFileSync(path.join(dir, `profile-${backendName}.md`), `${renderProfile(run, 1000)}\n`);
    process.stdout.write(`\n${text}\n\n(whole profile: test-artifacts/profile-${backendName}.md)\n`);
  }

  private machine(): RunMachine | null {
    const cpu = processTreeCpuMs();
    if (cpu === null || this.cpuAtStart === null) return null;
    return {
      cpuMs: cpu - this.cpuAtStart,
      cores: availableParallelism(),
      loadStart: this.loadAtStart,
      loadEnd: loadavg()[0]!,
    };
  }
}
