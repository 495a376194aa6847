import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { openDatabase } from '../../src/platform/db/database.ts';
import { createApiKey } from '../../src/domain/access/keys.ts';
import { resolvePepper } from '../../src/domain/access/pepper.ts';
import type { TestEnv } from '../helpers/backend.ts';
import { SERVER_ENTRY } from '../helpers/server-entry.ts';

/** Shared by the reliability tests: a test tier, server child processes, and a pooled HTTP client. */

export type TestTier = { code: string; dailyLimit: number; burstPerSecond?: number };

/**
 * Prepares a fresh environment's database before any server opens it: migrations, a tier of
 * our own (tiers are data, loaded once at server start) and one API key on it.
 */
export async function seedTierAndKey(
  env: TestEnv,
  tier: TestTier,
  workspace: string,
): Promise<{ prefix: string; secret: string }> {
  const db = await openDatabase({ databaseUrl: env.env.DATABASE_URL, dataDir: env.dataDir });
  try {
    await db.migrate();
    await db.prisma.tier.create({
      data: {
        code: tier.code,
        name: `Test ${tier.code}`,
        scoreEligible: true,
        dailyLimit: tier.dailyLimit,
        burstPerSecond: tier.burstPerSecond ?? 100_000,
        directReportLimit: 1,
        priceCents: 0,
        position: 99,
      },
    });
    return await createApiKey(db.prisma, resolvePepper(env.env.API_KEY_PEPPER, env.dataDir), {
      workspace,
      name: 'contention',
      tier: tier.code,
    });
  } finally {
    await db.close();
  }
}

/**
 * The server as `npm start` runs it, in a child process; resolves its URL once it logs "listening" (`listeners`
 * times, for WORKERS > 1: every worker logs it). `output(url)` is what that server has printed so far (its tail).
 */
export class ServerProcesses {
  private readonly children: ChildProcess[] = [];
  private readonly outputs = new Map<string, () => string>();

  /**
   * SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") are passed to node before the server, to profile
   * it in a test (docs/reliability.md); such children are then stopped with SIGTERM, so node writes the profile.
   */
  start(env: Record<string, string>, listeners = 1): Promise<string> {
    const child = spawn(process.execPath, [...(process.env.SERVER_NODE_ARGS?.split(' ') ?? []), SERVER_ENTRY], {
      env: { PATH: process.env.PATH!, ...env, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.children.push(child);
    let output = '';
    return new Promise((resolve, reject) => {
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-200_000);
        const urls = [...output.matchAll(/"url":"([^"]+)"[^\n]*"msg":"listening"/g)].map((m) => m[1]!);
        if (urls.length >= listeners) {
          this.outputs.set(urls[0]!, () => output);
          resolve(urls[0]!);
        }
      };
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      child.once('exit', (code, signal) =>
        reject(new Error(`server exited (${code ?? signal}) before listening:\n${output}`)),
      );
    });
  }

  output(url: string): string {
    return this.outputs.get(url)?.() ?? '';
  }

  /** Process ids of the children running now. */
  pids(): number[] {
    return this.children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => c.pid!);
  }

  /** Kills only the children this instance started, and waits for them to exit. */
  async stopAll(): Promise<void> {
    await Promise.all(
      this.children.splice(0).map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill(process.env.SERVER_NODE_ARGS ? 'SIGTERM' : 'SIGKILL');
          }),
      ),
    );
  }
}

export type Answer = { status: number; body: any; text: string; headers: http.IncomingHttpHeaders };

/**
 * A keep-alive pool per test: at most `sockets` connections per server, so a thousand calls in
 * flight queue on the client side instead of overflowing the server's accept backlog.
 */
export function pooledClient(sockets = 64) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  return {
    post(base: string, pathname: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
      const payload = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      return new Promise((resolve, reject) => {
        const req = http.request(
          new URL(pathname, base),
          {
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': payload.length, ...headers },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              let parsed: unknown = text;
              try {
                parsed = JSON.parse(text);
              } catch {
                /* keep the text so a failure shows it */
              }
              resolve({ status: res.statusCode ?? 0, body: parsed, text, headers: res.headers });
            });
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    },
    close() {
      agent.destroy();
    },
  };
}

/** Counts of each distinct value, for failure messages and figures: { "200": 300, "429 quota_exceeded": 700 }. */
export function tally<T>(items: T[], keyOf: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[keyOf(item)] = (out[keyOf(item)] ?? 0) + 1;
  return out;
}
