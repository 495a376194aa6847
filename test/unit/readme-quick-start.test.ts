/**
 * The README quick start's wait for readiness, run as written (extracted from the README, so an edit there is what
 * is tested), can never poll for ever: it ends when the server is ready, when the server has stopped (a port in
 * use ends it at once: test/integration/start-failures.test.ts), and after its bound otherwise, each time saying
 * what to look at. `sleep` and `curl` are stand-ins on PATH, so the bound is counted in rounds, not waited for, and
 * nothing reaches the network.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const README = readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
const quickStart = README.slice(README.indexOf('## Quick start'));
/** The loop from its `for` to its `done`. */
const WAIT = /^for i in \$\(seq \d+\);[\s\S]*?^done$/m.exec(quickStart)?.[0] ?? '';

describe("the README quick start's wait", () => {
  let bin: string;
  beforeAll(() => {
    bin = mkdtempSync(path.join(tmpdir(), 'risk-api-quick-start-'));
    writeFileSync(path.join(bin, 'sleep'), '#!/bin/sh\nexit 0\n');
    // Counts its calls; succeeds from the call named by $READY_AT (never when unset).
    writeFileSync(
      path.join(bin, 'curl'),
      '#!/bin/sh\necho x >> "$CALLS"\n[ -n "$READY_AT" ] && [ "$(wc -l < "$CALLS")" -ge "$READY_AT" ]\n',
    );
    for (const f of ['sleep', 'curl']) chmodSync(path.join(bin, f), 0o755);
  });
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  /** Runs the loop with SERVER = `server` (a pid); its output and how often it asked /readyz. */
  function wait(server: number, readyAt?: number) {
    const calls = path.join(bin, `calls-${Math.random()}`);
    writeFileSync(calls, '');
    const r = spawnSync('bash', ['-c', WAIT], {
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        PATH: `${bin}:${process.env.PATH}`,
        SERVER: String(server),
        CALLS: calls,
        ...(readyAt ? { READY_AT: String(readyAt) } : {}),
      },
    });
    const asked = readFileSync(calls, 'utf8').split('\n').filter(Boolean).length;
    return { status: r.status, out: r.stdout.trim(), asked };
  }

  it('is in the README, bounded by a round count', () => {
    expect(WAIT).toMatch(/seq 60/);
    expect(WAIT).toContain('kill -0 $SERVER');
  });

  it('ends as soon as the server answers ready, saying nothing', () => {
    expect(wait(process.pid, 3)).toEqual({ status: 0, out: '', asked: 3 });
  });

  it('ends at once when the server has stopped, pointing at its last line', async () => {
    const gone = spawn('true');
    await new Promise((r) => gone.on('exit', r));
    const r = wait(gone.pid!);
    expect(r.out).toBe('the server stopped: its last line above names the setting to fix');
    expect(r.asked).toBe(0);
  });

  it('gives up after its 60 rounds when the server runs but never gets ready, saying where to look', () => {
    const r = wait(process.pid);
    expect(r.out).toBe("not ready after 60 s: read the server's log lines above (JSON, one per line)");
    expect(r.asked).toBe(60);
  });
});
