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
    name: 'embedded', dataDir, env: { DATA_DIR: dataDir },
    async remove() { rmSync(dataDir, { recursive: true, force: true }); },
  };
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_PG_URL });
  await client.connect();
  try { return await work(client); } finally { await client.end(); }
}

export async function postgresBackend(): Promise<Backend> {
  const suffix = randomBytes(4).toString('hex');
  const database = `bench_${suffix}`;
  const prefix = `bench_${suffix}:`;
  await withAdmin((c) => c.query(`CREATE DATABASE ${database}`));
  const url = new URL(ADMIN_PG_URL);
  url.pathname = `/${database}`;
  // The data dir still holds what is not in the database (nothing of the pepper: it is set by env).
  const dataDir = mkdtempSync(path.join(tmpdir(), 'risk-bench-pg-'));
  return {
    name: 'postgres+redis', dataDir, databaseUrl: url.toString(),
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString(), REDIS_URL, REDIS_KEY_PREFIX: prefix },
    async remove() {
      rmSync(dataDir, { recursive: true, force: true });
      await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
      const redis = createClient({ url: REDIS_URL });
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
