/**
 * The two storage set-ups the service runs on, each fresh for one bench run and removed after:
 * the embedded default (a temp DATA_DIR) and PostgreSQL + Redis (a new database and a private
 * Redis key prefix on the machine's loopback services).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createClient } from 'redis';

export const ADMIN_PG_URL = process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

export type Backend = {
  name: 'embedded' | 'postgres+redis';
  dataDir: string;
  /** Environment the service child gets on top of the common one. */
  env: Record<string, string>;
  databaseUrl?: string;
  remove(): Promise<void>;
};

export function embeddedBackend(): Backend {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'risk-bench-embedded-'));
  return {
    name: 'embedded',
    dataDir,
    env: { DATA_DIR: dataDir },
    async remove() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A new database on the server `adminUrl` names (any existing database there to connect to) and
 * a new key prefix on `redisUrl`; both named `<label>_<random>` and removed by `remove()`.
 */
export async function postgresBackend(
  opts: { adminUrl?: string; redisUrl?: string; label?: string } = {},
): Promise<Backend> {
  const adminUrl = opts.adminUrl ?? ADMIN_PG_URL;
  const redisUrl = opts.redisUrl ?? REDIS_URL;
  const suffix = randomBytes(4).toString('hex');
  const label = (opts.label ?? 'bench').replace(/\W+/g, '_');
  const database = `${label}_${suffix}`;
  const prefix = `${label}_${suffix}:`;
  await withAdmin(adminUrl, (c) => c.query(`CREATE DATABASE ${database}`));
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  // The data dir still holds what is not in the database (nothing of the pepper: it is set by env).
  const dataDir = mkdtempSync(path.join(tmpdir(), 'risk-bench-pg-'));
  return {
    name: 'postgres+redis',
    dataDir,
    databaseUrl: url.toString(),
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString(), REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix },
    async remove() {
      rmSync(dataDir, { recursive: true, force: true });
      await withAdmin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
      const redis = createClient({ url: redisUrl });
      await redis.connect();
      try {
        for await (const batch of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
          if (batch.length > 0) await redis.del(batch);
        }
      } finally {
        await redis.close();
      }
    },
  };
}

/**
 * The environment of a service child: this process's own minus every setting the bench decides
 * (so a DATABASE_URL in the caller's shell never leaks into a child), then loopback, quiet logs
 * and no scheduled publishing, then `extra` (the backend's env, the pepper, …).
 */
export function serviceEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  const owned =
    /^(PORT|HOST|BASE_URL|DATA_DIR|DATABASE_URL|REDIS_URL|REDIS_KEY_PREFIX|LOG_LEVEL|API_KEY_PEPPER|PUBLISH_INTERVAL_MS)$/;
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !owned.test(k)) env[k] = v;
  return { ...env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', PUBLISH_INTERVAL_MS: '0', ...extra };
}
