import { afterAll, describe, expect, it } from 'vitest';
import { backendName, freshEnvironment, type TestEnv } from '../helpers/backend.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { createApiKey } from '../../src/domain/access/keys.ts';
import { resolvePepper } from '../../src/domain/access/pepper.ts';
import { eventually } from '../helpers/eventually.ts';
import { post, startServerProcess, type ServerProcess } from './faults-helpers.ts';

const DELAY_MS = 15_000;

async function serverWithKey(env: TestEnv): Promise<{ server: ServerProcess; auth: Record<string, string> }> {
  const setup = await openDatabase({ databaseUrl: env.env.DATABASE_URL, dataDir: env.dataDir });
  await setup.migrate();
  const { secret } = await createApiKey(setup.prisma, resolvePepper(undefined, env.dataDir), {
    workspace: 'drain',
    name: 'writer',
  });
  await setup.close();
  return { server: await startServerProcess(env.env), auth: { 'x-api-key': secret } };
}

const lines = (s: ServerProcess) =>
  s.logs.flatMap((l) => {
    try {
      return [JSON.parse(l) as Record<string, any>];
    } catch {
      return [];
    }
  });
const get = async (s: ServerProcess, path: string) => {
  const res = await fetch(s.url + path);
  return { status: res.status, body: await res.json().catch(() => null) };
};

/**
 * DRAIN_DELAY_MS, as an orchestrator sees it: after SIGTERM the process keeps its listener, /readyz answers 503
 * (draining) so the load balancer stops sending new requests, while /healthz, the API and /metrics still answer;
 * when the delay is over (or at a second signal) it drains, writes "stopped" last and exits 0.
 */
describe(`SIGTERM with DRAIN_DELAY_MS (${backendName})`, () => {
  const envs: TestEnv[] = [];
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    await Promise.all(envs.map((e) => e.cleanup()));
  });

  /** SIGTERM, then every route but /readyz still answers while readiness is withdrawn. */
  async function withdrawnButServing(s: ServerProcess, auth: Record<string, string>) {
    expect((await get(s, '/readyz')).status).toBe(200);
    s.child.kill('SIGTERM');
    expect(
      await eventually(async () => (await get(s, '/readyz')).status === 503, DELAY_MS, 25),
      'readiness withdrawn',
    ).toBe(true);
    expect(await get(s, '/readyz')).toEqual({
      status: 503,
      body: { ok: false, checks: { database: 'ok', counters: 'ok' }, draining: true },
    });
    expect(await get(s, '/healthz')).toEqual({ status: 200, body: { ok: true } });
    expect((await post(s.url, '/risk_api/rate/', { ip: '192.0.2.60', rating: 1 }, auth)).status).toBe(201);
    expect((await fetch(`${s.url}/metrics`)).status).toBe(200);
    expect(s.child.exitCode).toBeNull();
    expect(lines(s).filter((l) => l.msg === 'stopped')).toEqual([]);
  }

  it('keeps serving with /readyz 503 for the delay, then drains, writes "stopped" last and exits 0; a second signal ends the delay', async () => {
    const [timed, cut] = await Promise.all([
      freshEnvironment({ DRAIN_DELAY_MS: String(DELAY_MS) }),
      freshEnvironment({ DRAIN_DELAY_MS: '300000' }),
    ]);
    envs.push(timed, cut);
    const [a, b] = await Promise.all([serverWithKey(timed), serverWithKey(cut)]);
    servers.push(a.server, b.server);

    // The delay runs out by itself.
    await withdrawnButServing(a.server, a.auth);
    expect(await a.server.exited, a.server.logs.slice(-10).join('\n')).toBe(0);
    const done = lines(a.server).filter((l) => l.msg !== 'request'); // access lines of the requests above come between
    expect(done.map((l) => l.msg).slice(-3)).toEqual(['shutting down', 'draining', 'stopped']);
    expect(done.at(-3)).toMatchObject({ signal: 'SIGTERM', drainDelayMs: DELAY_MS });
    expect(done.at(-2)!.afterMs, 'the drain waited for the delay').toBeGreaterThanOrEqual(DELAY_MS - 5);
    expect(lines(a.server).at(-1)).toMatchObject({
      level: 'info',
      msg: 'stopped',
      signal: 'SIGTERM',
      ms: expect.any(Number),
    });
    await expect(fetch(`${a.server.url}/healthz`)).rejects.toThrow();

    // A second signal during a long delay drains at once.
    await withdrawnButServing(b.server, b.auth);
    b.server.child.kill('SIGTERM');
    expect(await b.server.exited, b.server.logs.slice(-10).join('\n')).toBe(0);
    expect(
      lines(b.server)
        .filter((l) => l.msg !== 'request')
        .map((l) => l.msg)
        .slice(-3),
    ).toEqual(['shutting down', 'draining', 'stopped']);
    expect(lines(b.server).at(-1)!.msg).toBe('stopped');
  }, 600_000);
});
